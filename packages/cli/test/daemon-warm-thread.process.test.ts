// `reins daemon --warm codex=1` opens the next Codex session's thread ahead, with the settings of the
// last session it started (DaemonOptions.warmThread, CodexHarnessOptions.warmThread 'last-session'): a
// real daemon process on the fake app-server, whose request log (FAKE_CODEX_CLIENT_LOG) says which
// process got which thread/start. The second session in the first one's cwd sends no thread/start of its
// own and hears no miss; one in another cwd opens its own and says why; --no-warm-thread opens none.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { createHarness } from '@reins/harnesses';
import { fakeHarnessPath, SessionRecorder, until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { REINS_BIN, type RunningCli, startCli } from './cli.js';

const TRANSCRIPT = fileURLToPath(
  new URL('../../harnesses/src/codex/fixtures/text-turn.0.169.0.jsonl', import.meta.url),
);

interface Request {
  pid: number;
  method: string;
  params: Record<string, unknown>;
}

const running: Array<{ daemon: RunningCli; reins: ReinsClient; folder: string; recorders: SessionRecorder[] }> = [];
afterEach(async () => {
  for (const { daemon, reins, folder, recorders } of running.splice(0)) {
    await SessionRecorder.closeAll(recorders);
    reins.close();
    if (daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
    await rm(folder, { recursive: true, force: true });
  }
});

async function startDaemonCli(flags: string[]) {
  const folder = await mkdtemp(join(tmpdir(), 'reins-daemon-warm-thread-'));
  const home = join(folder, 'reins');
  const log = join(folder, 'client.jsonl');
  const daemon = startCli(['daemon', '--warm', 'codex=1', ...flags], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: folder,
      REINS_HOME: home,
      REINS_CODEX_BIN: fakeHarnessPath('codex'),
      FAKE_CODEX_TRANSCRIPT: TRANSCRIPT,
      FAKE_CODEX_CLIENT_LOG: log,
    },
  });
  await daemon.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')));
  const reins = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 20_000 });
  const recorders: SessionRecorder[] = [];
  running.push({ daemon, reins, folder, recorders });
  const requests = (method: string): Request[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Request)
          .filter((request) => request.method === method)
      : [];
  const project = async (name: string) => {
    const cwd = join(folder, name);
    await mkdir(cwd, { recursive: true });
    return cwd;
  };
  const open = async (cwd: string) => {
    const session = await reins.createSession('codex', { cwd, posture: 'bypass' });
    const recorder = new SessionRecorder(session, 20_000);
    recorders.push(recorder);
    return { session, recorder };
  };
  return { requests, project, open, folder, home, recorders, reins };
}

const misses = (events: ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'notice' && (event.data as { warmThread?: string } | undefined)?.warmThread === 'missed'
      ? [(event.data as { reason: string }).reason]
      : [],
  );

describe('reins daemon --warm codex=1: threads opened ahead for the last session', () => {
  it('the next session in the same cwd takes a thread opened ahead; another cwd opens its own and says why', async () => {
    const { requests, project, open, reins } = await startDaemonCli([]);
    const app = await project('app');
    const other = await project('other');
    // What a console or a bridge asks first (it loads every adapter, Claude Code's SDK among them).
    await reins.harnesses();
    // No session yet: the warm app-server has no settings to open a thread with.
    expect(requests('thread/start')).toEqual([]);
    const warmPid = requests('initialize')[0]?.pid;

    const first = await open(app);
    expect((await first.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(first.recorder.events)).toEqual([]);
    const sharedPid = requests('thread/start')[0]?.pid;
    expect(sharedPid).toBe(warmPid); // the session took the warm app-server
    const onShared = () => requests('thread/start').filter((request) => request.pid === sharedPid);
    // The shared app-server opens the next thread ahead with the first session's settings.
    await until(() => onShared().length === 2, 'the thread opened ahead', 15_000);
    expect(onShared()[1]?.params).toMatchObject({ cwd: app, approvalPolicy: 'never', sandbox: 'danger-full-access' });

    const second = await open(app);
    expect(onShared()).toHaveLength(2); // no thread/start of its own
    expect((await second.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(second.recorder.events)).toEqual([]);
    expect(second.session.nativeSessionId).toBe(`${first.session.nativeSessionId}-2`);
    expect(requests('turn/start').at(-1)).toMatchObject({
      pid: sharedPid,
      params: { threadId: second.session.nativeSessionId },
    });

    // The next one opens a while after that take; a session in another project misses it, with the reason.
    await until(() => onShared().length === 3, 'the next thread opened ahead', 15_000);
    const elsewhere = await open(other);
    await elsewhere.recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(elsewhere.recorder.events)).toEqual(['cwd']);
    const notice = elsewhere.recorder.events.find((event) => event.type === 'notice');
    expect(notice).toMatchObject({ kind: 'info', message: expect.stringContaining('cwd differs') });
    expect(onShared()[3]?.params.cwd).toBe(other);
    // The thread ahead follows the last session: the next one opens in the other project.
    await until(() => onShared().length === 5, 'the thread ahead moved to the other project', 15_000);
    expect(onShared()[4]?.params.cwd).toBe(other);
  });

  it('a bridge with --daemon gets the thread opened ahead too (its second session sends no thread/start)', async () => {
    const { requests, project, folder, home, recorders } = await startDaemonCli([]);
    const warmPid = () => requests('initialize')[0]?.pid;
    const app = await project('app');
    const acp = await createHarness('acp', {
      command: process.execPath,
      args: [REINS_BIN, 'bridge', 'acp', '-H', 'codex', '--daemon'],
      baseEnv: { PATH: process.env.PATH ?? '', HOME: folder, REINS_HOME: home },
      requestTimeoutMs: 20_000,
    });
    const through = async () => {
      const session = await acp.createSession({ cwd: app, posture: 'bypass' });
      const recorder = new SessionRecorder(session, 20_000);
      recorders.push(recorder);
      expect((await recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
      return recorder;
    };
    await through();
    const sharedPid = requests('thread/start')[0]?.pid;
    expect(sharedPid).toBe(warmPid()); // the bridge's session took the daemon's warm app-server
    await until(
      () => requests('thread/start').filter((request) => request.pid === sharedPid).length === 2,
      'the thread opened ahead for the bridge’s next session',
      15_000,
    );
    await through();
    // Both threads the bridge's sessions ran on came from that process's two thread/starts: none of its own.
    expect(requests('thread/start').filter((request) => request.pid === sharedPid)).toHaveLength(2);
    expect(new Set(requests('turn/start').map((request) => request.params.threadId)).size).toBe(2);
  });

  it('--no-warm-thread: warm app-servers, no thread opened ahead', async () => {
    const { requests, project, open } = await startDaemonCli(['--no-warm-thread']);
    const app = await project('app');
    const first = await open(app);
    expect((await first.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    const second = await open(app);
    expect((await second.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    // The warm one's replacement started and initialised, and opened no thread: each thread/start is a session's.
    await until(() => requests('initialize').length === 2, 'the replacement warm app-server', 15_000);
    expect(requests('thread/start')).toHaveLength(2);
    expect(misses([...first.recorder.events, ...second.recorder.events])).toEqual([]);
  });
});
