// `reins bridge codex-app-server -H codex` with the binary known starts its app-server before the bundle
// loads (bin/reins.js, prestartHarness); the harness takes that child instead of spawning its own: one
// app-server, the one that serves the thread. A start that runs no harness (--version, --help) spawns nothing, and one
// that ends early (a usage error) leaves nothing behind. A second start runs no `codex --version`.
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from './cli.js';

const FAKE_CODEX = fakeHarnessPath('codex');
const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

let home: string;
let log: string;
let launcher: string;
let marker: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-bridge-prestart-'));
  // A launcher that notes every start of the fake Codex (its pid, which exec keeps, and its arguments).
  log = join(home, 'starts.log');
  launcher = join(home, 'codex');
  await writeFile(launcher, `#!/bin/sh\necho "$$ $*" >> '${log}'\nexec "${process.execPath}" '${FAKE_CODEX}' "$@"\n`);
  await chmod(launcher, 0o755);
  marker = `bridge-prestart-${process.pid}-${Date.now()}`;
  env = {
    PATH: process.env.PATH,
    HOME: home,
    REINS_HOME: join(home, 'reins'),
    FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
    BRIDGE_TEST_MARKER: marker,
  };
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** [pid, arguments] of every start of the launcher so far. */
async function starts(): Promise<Array<[number, string]>> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => [Number(line.slice(0, line.indexOf(' '))), line.slice(line.indexOf(' ') + 1)]);
}

describe('the Codex bridge started beside its loading', () => {
  it('hands the app-server it started first to the first thread; a second start runs no --version', async () => {
    let seen = 0;
    for (const _run of [1, 2]) {
      const bridge = startCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', launcher, 'app-server'], {
        env,
        cwd: home,
      });
      const write = (frame: unknown) => bridge.child.stdin?.write(`${JSON.stringify(frame)}\n`);
      write({ id: 1, method: 'initialize', params: { clientInfo: { name: 'test', version: '0' } } });
      await bridge.waitForOutput('"id":1');
      write({ method: 'initialized', params: {} });
      write({ id: 2, method: 'thread/start', params: { cwd: home } });
      await bridge.waitForOutput('"id":2');
      // Every app-server this bridge started is alive: the one started first serves the thread (one the
      // harness did not take would have been ended once the warm one was up), and any later one is the
      // pool's replacement (a second after the first was taken: hosts.ts, WARM_REFILL_DELAY_MS).
      const appServers = (await starts()).filter(([, args]) => args === 'app-server --strict-config').slice(seen);
      expect(appServers.length).toBeGreaterThan(0);
      const live = processesWith(marker);
      for (const [pid] of appServers) expect(live).toContain(pid);
      bridge.child.stdin?.end();
      const result = await bridge.done;
      expect(result.code).toBe(0);
      // The bridge says the prestarted one was taken: without a prestart, or with one the harness did not
      // take, this line is not there.
      expect(result.stderr).toContain('reins bridge: the app-server started as the bridge loaded serves this harness');
      expect(processesWith(marker)).toEqual([]);
      seen = (await starts()).filter(([, args]) => args === 'app-server --strict-config').length;
    }
    // The version probe ran in the first start only (remembered in REINS_HOME/cache).
    expect((await starts()).filter(([, args]) => args === '--version')).toHaveLength(1);
  });

  it('spawns nothing for --version or --help', async () => {
    for (const flag of ['--version', '--help']) {
      const result = await runCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', launcher, flag], {
        env,
        cwd: home,
        input: '',
      });
      expect(result.code).toBe(0);
    }
    expect(await starts()).toEqual([]);
  });

  it('leaves no app-server behind when the command ends on a usage error', async () => {
    for (const args of [
      ['--mode', 'tui'],
      ['--listen', 'nowhere://'],
    ]) {
      const result = await runCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', launcher, ...args], {
        env,
        cwd: home,
        input: '',
      });
      expect(result.code).toBe(2);
      expect(processesWith(marker)).toEqual([]);
    }
  });
});

/** Live processes whose environment carries the marker (the bridge's harness children). */
function processesWith(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
      if (!zombie && readFileSync(`/proc/${name}/environ`, 'utf8').includes(`BRIDGE_TEST_MARKER=${mark}`)) {
        found.push(Number(name));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
