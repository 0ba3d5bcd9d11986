// Real tier, hermetic: `reins bridge codex-app-server -H codex` on the REAL pinned Codex, found through
// REINS_CODEX_BIN: its app-server starts before the bundle loads and serves the thread (one app-server
// per bridge), and the second bridge start runs no `codex --version`.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/cli/test/bridge-prestart.real.test.ts
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertHermetic, isProcessAlive, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './cli.js';
import { type UserEnv, userEnvFor } from './harness-env.js';

let server: ModelServer;
let user: UserEnv | undefined;
beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await user?.temp.cleanup();
  await server?.close();
});

describe('reins bridge codex-app-server -H codex, started beside its loading (real Codex)', () => {
  it('serves a turn on the app-server it started first; the second start runs no --version', async () => {
    user = await userEnvFor('codex', server);
    // A launcher in front of the pinned binary noting each start (exec keeps the pid).
    const log = join(user.workdir, 'starts.log');
    const launcher = join(user.workdir, 'codex-launcher');
    await writeFile(launcher, `#!/bin/sh\necho "$$ $*" >> '${log}'\nexec '${user.env.REINS_CODEX_BIN}' "$@"\n`);
    await chmod(launcher, 0o755);
    const env = { ...user.env, REINS_CODEX_BIN: launcher };
    /** The pids of the launcher's starts with these arguments. */
    const starts = async (args: string) =>
      (await readFile(log, 'utf8').catch(() => ''))
        .split('\n')
        .filter((line) => line.endsWith(` ${args}`))
        .map((line) => Number(line.slice(0, line.indexOf(' '))));
    let seen = 0;

    for (const run of [1, 2]) {
      server.enqueue(reply().text(`Hello through the bridge, run ${run}.`));
      const bridge = startCli(['bridge', 'codex-app-server', '-H', 'codex', 'app-server', '--strict-config'], {
        env,
        cwd: user.workdir,
      });
      const write = (frame: unknown) => bridge.child.stdin?.write(`${JSON.stringify(frame)}\n`);
      write({ id: 1, method: 'initialize', params: { clientInfo: { name: 'test', version: '0' } } });
      write({ method: 'initialized', params: {} });
      write({ id: 2, method: 'thread/start', params: { cwd: user.workdir, approvalPolicy: 'never' } });
      await bridge.waitForOutput('"id":2', 120_000);
      const threadId = /"thread":\{"id":"([^"]+)"/.exec(bridge.stdout())?.[1];
      expect(threadId, bridge.stdout()).toBeDefined();
      write({
        id: 3,
        method: 'turn/start',
        params: { threadId, input: [{ type: 'text', text: 'Say hello.', text_elements: [] }] },
      });
      await bridge.waitForOutput('"method":"turn/completed"', 120_000);
      expect(bridge.stdout()).toContain(`Hello through the bridge, run ${run}.`);
      // Every app-server this bridge started is alive: the first serves the thread (one the harness did
      // not take would have been ended), a later one is the warm pool's replacement.
      const appServers = (await starts('app-server --strict-config')).slice(seen);
      expect(appServers.length).toBeGreaterThan(0);
      for (const pid of appServers) expect(isProcessAlive(pid), `app-server ${pid}`).toBe(true);
      bridge.child.stdin?.end();
      const result = await bridge.done;
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('reins bridge: the app-server started as the bridge loaded serves this harness');
      seen = (await starts('app-server --strict-config')).length;
    }
    expect(await starts('--version')).toHaveLength(1);
  }, 300_000);
});
