// The cluster as users run it, on the testkit's fake Claude Code (recorded 2.1.197 frames): a
// nats-server of the test's own, and each member a separate `reins daemon --cluster` process (the
// built CLI): two workers with their own REINS_HOME and labels, two gateways. A worker killed with
// SIGKILL in the middle of a turn: the turn ends failed (process_exited) for the clients of both
// gateways, the session is lost, the next send resumes it on the other worker (`--resume` with
// the same conversation id) and the log goes on with no gap. A gateway killed with SIGKILL: its
// client goes on through the other one from the seq it had. The killed worker, started again on
// its home, reaps the tool process its harness left: zero orphans.
import { readFileSync } from 'node:fs';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, DaemonInfoSchema, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningCli, runCli, startCli } from '../../../cli/test/cli.js';
import { EventReader, fakeClaudeEnv, LOGGING_FAKE } from '../helpers.js';
import { ClusterRig, noticeWith } from './rig.js';

let rig: ClusterRig | undefined;
const processes: RunningCli[] = [];
const clients: ReinsClient[] = [];
beforeAll(async () => {
  await chmod(LOGGING_FAKE, 0o755);
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const running of processes.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGTERM');
      await running.done;
    }
  }
  await rig?.dispose();
  rig = undefined;
});

const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

async function member(args: string[], home: string, env: Record<string, string> = {}): Promise<RunningCli> {
  const running = startCli(['daemon', '--cluster', rig?.nats.url ?? '', '--heartbeat-ttl', '4s', ...args], {
    env: { PATH: process.env.PATH ?? '', REINS_HOME: home, ...env },
  });
  processes.push(running);
  await running.waitForOutput(/Press Ctrl\+C to stop/, 30_000);
  return running;
}

async function gatewayClient(home: string): Promise<ReinsClient> {
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')));
  const client = await connect({ url: info.url, token: info.token, WebSocket, requestTimeoutMs: 30_000 });
  clients.push(client);
  return client;
}

describe('reins daemon --cluster usage', () => {
  it('refuses bad cluster flags with exit 2 and a sentence, and never prints a NATS password', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--role', 'worker'], /--role needs --cluster/],
      [['--cluster', 'http://127.0.0.1:4222'], /not nats:\/\/HOST:PORT/],
      [['--cluster', 'nats://127.0.0.1:4222', '--labels', 'host'], /--labels: "host" is not key=value/],
      [['--cluster', 'nats://127.0.0.1:4222', '--role', 'worker', '--port', '7000'], /serves no clients/],
      [['--cluster', 'nats://127.0.0.1:4222', '--role', 'leader'], /--role must be one of gateway, worker, all/],
      [['--cluster', 'nats://127.0.0.1:4222', '--heartbeat-ttl', '200ms'], /at least 1 s/],
      [['--cluster', 'nats://reins:s3cret@127.0.0.1:1'], /Cannot reach NATS at nats:\/\/reins:\*\*\*@127\.0\.0\.1:1/],
    ];
    rig = await ClusterRig.start();
    const home = await rig.folder('home');
    for (const [args, message] of cases) {
      const result = await runCli(['daemon', ...args], { env: { PATH: process.env.PATH ?? '', REINS_HOME: home } });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout + result.stderr).not.toContain('s3cret');
    }
  });
});

describe('cluster of reins daemon processes on the fake Claude Code', () => {
  it('a worker killed mid-turn: failed for every client, lost, resumed on the other worker; a gateway killed: its client goes on through the other', async () => {
    rig = await ClusterRig.start();
    const argvLog = join(await rig.folder('logs'), 'argv.log');
    const orphans = join(await rig.folder('logs'), 'grandchildren.log');
    const claudeHome = await rig.folder('claude-home');
    const cwd = await rig.folder('work');
    const worker = (extra: Record<string, string>) => ({
      ...fakeClaudeEnv({ home: claudeHome, fixture: 'resume', argvLog, grandchildPids: orphans, extra }),
      REINS_CLAUDE_CODE_BIN: LOGGING_FAKE,
    });
    const homes = {
      a: await rig.folder('home-a'),
      b: await rig.folder('home-b'),
      g1: await rig.folder('home-g1'),
      g2: await rig.folder('home-g2'),
    };
    // Worker a's harness answers its first message and stays silent on its second (a turn that runs until killed).
    const workerA = await member(
      ['--role', 'worker', '--labels', 'pool=x,host=a'],
      homes.a,
      worker({ FAKE_CLAUDE_SILENT_TURN: '2' }),
    );
    const gateway1 = await member(['--role', 'gateway'], homes.g1);
    const gateway2 = await member(['--role', 'gateway'], homes.g2);
    const one = await gatewayClient(homes.g1);
    const two = await gatewayClient(homes.g2);

    const session = await one.createSession('claude-code', { cwd }, undefined, { labels: { pool: 'x' } });
    const reader = new EventReader(session.events);
    const first = await session.send('Remember the word pelican.');
    await reader.waitFor(turnEnd(first.turnId), 'the first turn');
    const native = session.nativeSessionId;
    expect((await one.listSessions())[0]).toMatchObject({ status: 'idle', nativeSessionId: native });
    // Worker b joins only now, so the session was placed on a; b has the pool label too.
    const workerB = await member(['--role', 'worker', '--labels', 'pool=x,host=b'], homes.b, worker({}));
    const idOf = (cli: RunningCli) => /Reins worker (\S+) joined/.exec(cli.stdout())?.[1];
    expect((await one.listSessions())[0]?.worker).toBe(idOf(workerA));
    const watcher = new EventReader((await two.attach(session.id, { afterSeq: 0 })).events);

    const running = await session.send('Which word was it?');
    await watcher.waitFor(
      (event) => event.type === 'turn.started' && event.turnId === running.turnId,
      'turn 2 at gateway 2',
    );
    workerA.child.kill('SIGKILL');
    // Failed for the clients of both gateways, within a bounded time (heartbeat deadline 4 s).
    for (const events of [reader, watcher]) {
      const ended = await events.waitFor(turnEnd(running.turnId), 'the killed turn to end', 15_000);
      expect(ended).toMatchObject({ outcome: { status: 'failed', error: { code: 'process_exited' } } });
    }
    await watcher.waitFor(noticeWith('lost'), 'the lost notice');
    expect((await two.listSessions())[0]).toMatchObject({ status: 'lost' });

    // The next send resumes the same conversation on worker b.
    const third = await session.send('Say it again.');
    await reader.waitFor(turnEnd(third.turnId), 'the turn on worker b', 30_000);
    expect(reader.events.find(turnEnd(third.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    const listed = (await two.listSessions())[0];
    expect(listed).toMatchObject({ worker: idOf(workerB), nativeSessionId: native, labels: { pool: 'x' } });
    const launches = (await readFile(argvLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
    expect(launches.at(-1)?.join(' ')).toContain(`--resume=${native}`);

    // Gateway 1 dies: its client carries on through gateway 2 from the last seq it had.
    gateway1.child.kill('SIGKILL');
    await reader.ended(15_000);
    const moved = await gatewayClient(homes.g2);
    const lastSeen = reader.events.at(-1)?.seq ?? 0;
    const resumed = await moved.attach(session.id, { afterSeq: lastSeen });
    const after = new EventReader(resumed.events);
    const fourth = await resumed.send('And once more.');
    await after.waitFor(turnEnd(fourth.turnId), 'a turn through gateway 2', 30_000);
    const seen = [...reader.events, ...after.events];
    const seqs = seen.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    // The other client sees the same log; it may already hold events after it (the session going idle).
    const last = seqs.at(-1) ?? 0;
    await watcher.waitFor((event) => event.seq >= last, 'the same events at the other client');
    expect(watcher.events.slice(0, seen.length)).toEqual(seen);

    // Worker a comes back on its home: it reaps the tool process its killed harness left behind.
    const leftBehind = (await readFile(orphans, 'utf8')).trim().split('\n').map(Number);
    expect(leftBehind.some(isAlive)).toBe(true);
    await member(['--role', 'worker', '--labels', 'pool=x,host=a'], homes.a, worker({}));
    await until(() => !leftBehind.slice(0, 1).some(isAlive), 'the orphan of the killed worker to be reaped', 10_000);
    expect(gateway2.child.exitCode).toBeNull();
  });
});
