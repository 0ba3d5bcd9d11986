// `reins bridge acp --daemon`: the bridge's sessions open in a running `reins daemon` (a real one, its own
// process, keeping a warm fake Codex app-server), not in the bridge. Reins' own acp harness is the ACP
// client. Proven from the outside: the session is in the daemon's list, its harness process is the
// daemon's child while the bridge has none, and closing the ACP session closes the daemon's. Asked for
// where no daemon answers, the bridge exits 2 with a sentence naming what to do (and never the token).

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { descendantsOf, fakeHarnessPath, isDaemonWatcher, processTable, SessionRecorder, until } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { REINS_BIN, type RunningCli, runCli, startCli } from './cli.js';

const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);
/** The Codex thread id in the recorded transcript. */
const THREAD_ID = '01a22b18-53ed-76d1-97a1-d4d77e83ab03';

/** Live processes whose environment carries `entry` (NAME=value). */
function processesWithEnv(entry: string): number[] {
  return processTable()
    .filter((process) => process.state !== 'Z')
    .map((process) => process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
      } catch {
        return false; // gone, or not ours to read
      }
    });
}

describe('reins bridge acp --daemon (a real reins daemon with a warm fake Codex)', () => {
  let folder: string;
  let home: string;
  let daemon: RunningCli | undefined;
  let reins: ReinsClient | undefined;
  // Other test files run fake Codexes on the same transcript at the same time: this mark is the daemon's alone.
  const daemonMark = `${process.pid}-${Date.now()}-daemon`;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'reins-bridge-daemon-'));
    home = join(folder, 'reins');
    daemon = startCli(['daemon', '--warm', 'codex=1'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: folder,
        REINS_HOME: home,
        REINS_CODEX_BIN: fakeHarnessPath('codex'),
        FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
        REINS_DAEMON_TEST_MARK: daemonMark,
      },
    });
    await daemon.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
    const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')));
    reins = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
  }, 60_000);
  afterAll(async () => {
    reins?.close();
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
    await rm(folder, { recursive: true, force: true });
  });

  it('runs the turn in a daemon session: listed there, its harness the daemon child, closed with the ACP session', async () => {
    const daemonPid = daemon?.child.pid as number;
    const mark = `${process.pid}-${Date.now()}`;
    const acp = await createHarness('acp', {
      command: process.execPath,
      args: [REINS_BIN, 'bridge', 'acp', '-H', 'codex', '--daemon'],
      // No REINS_CODEX_BIN here: a bridge that ran the harness itself would fail to find it.
      baseEnv: { PATH: process.env.PATH ?? '', HOME: folder, REINS_HOME: home, REINS_BRIDGE_TEST_MARK: mark },
      requestTimeoutMs: 20_000,
    });
    const session = await acp.createSession({ cwd: folder, posture: 'bypass' });
    const recorder = new SessionRecorder(session, 20_000);
    try {
      const terminal = await recorder.turn('Say hello.');
      expect(terminal.outcome).toEqual({ status: 'completed' });
      const texts = recorder
        .turnEvents(terminal.turnId as string)
        .flatMap((event: ReinsEvent) =>
          event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
        );
      expect(texts).toEqual(['Hello from the scripted model.']);
      expect(session.nativeSessionId).toBe(THREAD_ID);

      // The bridge asked the daemon for events without native frames (the daemon's log says what it granted).
      const bridgeConnection = (daemon?.stderr() ?? '')
        .split('\n')
        .find((line) => line.includes('connection initialized') && line.includes('"client":"reins bridge/'));
      expect(bridgeConnection).toContain('"omitNative":true');

      // The daemon holds the session the bridge opened.
      const listed = (await (reins as ReinsClient).listSessions()).filter((entry) => entry.cwd === folder);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ harness: 'codex', nativeSessionId: THREAD_ID });

      // The harness processes are the daemon's; the bridge started none.
      const [bridgePid, ...others] = processesWithEnv(`REINS_BRIDGE_TEST_MARK=${mark}`);
      expect(others).toEqual([]);
      const bridgeChildren = descendantsOf(bridgePid as number).filter(
        (entry) => entry.state !== 'Z' && !isDaemonWatcher(entry.pid),
      );
      expect(bridgeChildren).toEqual([]);
      // Every process started with the daemon's environment (its mark) must be the daemon's descendant.
      const codexes = processesWithEnv(`REINS_DAEMON_TEST_MARK=${daemonMark}`).filter((pid) => pid !== daemonPid);
      const daemonFamily = new Set(descendantsOf(daemonPid).map((entry) => entry.pid));
      expect(codexes.length).toBeGreaterThan(0);
      expect(codexes.filter((pid) => !daemonFamily.has(pid))).toEqual([]);

      // Closing the ACP session closes the daemon's (the bridge leaves nothing running there).
      await recorder.close();
      await until(
        async () =>
          (await (reins as ReinsClient).listSessions()).find((entry) => entry.sessionId === listed[0]?.sessionId)
            ?.status === 'closed' || undefined,
        'the daemon session closed',
        20_000,
      );
    } finally {
      await session.close();
    }
  }, 90_000);
});

describe('reins bridge --daemon where no daemon answers', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'reins-bridge-nodaemon-'));
    return () => rm(home, { recursive: true, force: true });
  });
  const env = () => ({ PATH: process.env.PATH ?? '', HOME: home, REINS_HOME: join(home, 'reins') });

  it('exits 2 naming the missing daemon.json and what to do, with nothing on stdout', async () => {
    const result = await runCli(['bridge', 'acp', '-H', 'codex', '--daemon'], { env: env(), input: '' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /reins bridge: invalid_input: No Reins daemon runs for .*reins \(no daemon\.json\): start one with `reins daemon`, or leave out --daemon/,
    );
  });

  it('exits 2 when the daemon.json names a daemon that is gone, without printing its token', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address() as { port: number };
        server.close(() => resolve(address.port));
      });
    });
    const token = 'a-token-that-must-never-be-printed-0123456789';
    await mkdir(join(home, 'reins'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(home, 'reins', 'daemon.json'),
      JSON.stringify({ url: `ws://127.0.0.1:${port}`, pid: 999_999, token, protocolVersion: 2, startedAt: 1 }),
      { mode: 0o600 },
    );
    const result = await runCli(['bridge', 'codex-app-server', '-H', 'codex', '--daemon'], {
      env: env(),
      input: '',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /reins bridge: invalid_input: --daemon: Could not connect to the Reins daemon at ws:\/\/127\.0\.0\.1:\d+/,
    );
    expect(result.stderr).toMatch(/leave out --daemon to run the harness inside the bridge/);
    expect(result.stderr).not.toContain(token);
  });

  it('refuses --binary beside --daemon', async () => {
    const result = await runCli(['bridge', 'acp', '-H', 'codex', '--daemon', '--binary', '/bin/true'], {
      env: env(),
      input: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--binary and --daemon/);
  });
});
