// The cluster's mechanics on the testkit's fake CLIs (recorded Codex 0.169.0 and Claude Code
// 2.1.197 frames; the bench's Codex emitter for long turns), with a nats-server of the test's own
// and cluster nodes in this process: placement by labels, any gateway replays any session
// identically, session/list names the worker; a worker that leaves leaves its sessions lost and
// the next send resumes the conversation on the other worker; a gateway that goes costs its
// client only a reconnect with afterSeq; a NATS restart mid-stream loses and doubles nothing.
// A worker cut off from NATS (through a proxy the test cuts) for longer than the heartbeat deadline
// stops its harness processes; its running turn ends failed, the session is lost and resumes
// elsewhere, and nothing the cut-off worker still tried to write gets into the log.
// (A worker killed with SIGKILL mid-turn: cluster-cli.process.test.ts, real processes.)
import { chmod, readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codexTranscript, EventReader, fakeClaudeOptions, fakeCodexOptions, LOGGING_FAKE } from '../helpers.js';
import { problems, WireWatcher } from '../wire-watcher.js';
import { ClusterRig, noticeWith, storedSeqs } from './rig.js';

const EMITTER = fileURLToPath(new URL('../../../../bench/fakes/codex-emitter.mjs', import.meta.url));

let rig: ClusterRig | undefined;
const watchers: WireWatcher[] = [];
const proxies: Server[] = [];
beforeAll(async () => {
  await chmod(LOGGING_FAKE, 0o755);
});
afterEach(async () => {
  for (const watcher of watchers.splice(0)) watcher.close();
  for (const proxy of proxies.splice(0)) proxy.close();
  await rig?.dispose();
  rig = undefined;
  expect(liveProcessCount()).toBe(0);
});

const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;

function emitterOptions(frames: number, rate: number) {
  return {
    codex: {
      binaryPath: EMITTER,
      baseEnv: {
        PATH: process.env.PATH ?? '',
        BENCH_CODEX_FIXTURE: codexTranscript('text-turn'),
        BENCH_FRAMES: String(frames),
        BENCH_RATE: String(rate),
      },
      requestTimeoutMs: 30_000,
    },
  };
}

/** A TCP proxy to NATS that the test can cut (every connection dropped, new ones refused) and restore. */
async function natsProxy(port: number): Promise<{ url: string; cut(): void; restore(): void }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  proxies.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${address.port}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
  };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function watch(daemon: { url: string; token: string } | undefined, keepEvents = false): Promise<WireWatcher> {
  if (!daemon) throw new Error('not a gateway');
  const watcher = await WireWatcher.open(daemon, keepEvents);
  watchers.push(watcher);
  return watcher;
}

describe('cluster on fake harnesses', () => {
  it('places sessions by labels, names their worker, and replays any of them from another gateway', async () => {
    rig = await ClusterRig.start();
    const codex = { codex: fakeCodexOptions('text-turn') };
    const a = await rig.node({ role: 'worker', labels: { host: 'a' }, harnesses: ['codex'], harnessOptions: codex });
    const b = await rig.node({ role: 'worker', labels: { host: 'b' }, harnesses: ['codex'], harnessOptions: codex });
    const gatewayA = await rig.node({ role: 'gateway' });
    const gatewayB = await rig.node({ role: 'gateway' });
    const cwd = await rig.folder('work');

    const first = await rig.client(gatewayA);
    const readers = new Map<string, EventReader>();
    for (const host of ['a', 'b', 'b']) {
      const session = await first.createSession('codex', { cwd }, undefined, { labels: { host } });
      const reader = new EventReader(session.events);
      readers.set(session.id, reader);
      const sent = await session.send('Say hello');
      await reader.waitFor(turnEnd(sent.turnId), `the turn on worker ${host}`);
    }
    const listed = await first.listSessions();
    expect(listed.map((entry) => entry.worker).sort()).toEqual([a.worker?.id, b.worker?.id, b.worker?.id].sort());
    for (const entry of listed) expect(entry.labels).toEqual({ host: entry.worker === a.worker?.id ? 'a' : 'b' });
    await expect(first.createSession('codex', { cwd }, undefined, { labels: { host: 'c' } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('host=c'),
    });

    // Gateway B: the same sessions, every log from seq 1, identical.
    const second = await rig.client(gatewayB);
    const seen = await second.listSessions();
    expect(seen.map((entry) => [entry.sessionId, entry.lastSeq, entry.worker]).sort()).toEqual(
      listed.map((entry) => [entry.sessionId, entry.lastSeq, entry.worker]).sort(),
    );
    for (const entry of seen) {
      const replay = new EventReader((await second.attach(entry.sessionId, { afterSeq: 0 })).events);
      await replay.waitFor((event) => event.seq === entry.lastSeq, 'the replay');
      const live = readers.get(entry.sessionId);
      await live?.waitFor((event) => event.seq === entry.lastSeq, 'the live log');
      const upTo = (events: ReinsEvent[] = []) => events.filter((event) => event.seq <= entry.lastSeq);
      expect(upTo(replay.events)).toEqual(upTo(live?.events));
    }
  });

  it('a worker that leaves leaves its session lost; the next send resumes the conversation on the other worker', async () => {
    rig = await ClusterRig.start();
    const argvLog = join(await rig.folder('logs'), 'argv.log');
    const claude = { 'claude-code': fakeClaudeOptions({ home: await rig.folder('claude-home'), argvLog }) };
    const workers = [
      await rig.node({
        role: 'worker',
        labels: { pool: 'x', host: 'a' },
        harnesses: ['claude-code'],
        harnessOptions: claude,
      }),
      await rig.node({
        role: 'worker',
        labels: { pool: 'x', host: 'b' },
        harnesses: ['claude-code'],
        harnessOptions: claude,
      }),
    ];
    const gateway = await rig.node({ role: 'gateway' });
    const cwd = await rig.folder('work');
    const client = await rig.client(gateway);
    const changes: string[] = [];
    client.onSessionsChanged(({ change }) => changes.push(change));

    const session = await client.createSession('claude-code', { cwd }, undefined, { labels: { pool: 'x' } });
    const reader = new EventReader(session.events);
    const first = await session.send('Say hello');
    await reader.waitFor(turnEnd(first.turnId), 'the first turn');
    const native = session.nativeSessionId;
    expect(native).toBeTruthy();
    const holder = (await client.listSessions())[0]?.worker;
    const [leaving, staying] = workers[0]?.worker?.id === holder ? workers : [...workers].reverse();

    await leaving?.close();
    const lost = await reader.waitFor(noticeWith('lost'), 'the lost notice');
    expect(lost).toMatchObject({ kind: 'warning', data: { lost: { worker: holder } } });
    expect((await client.listSessions())[0]).toMatchObject({ status: 'lost', worker: holder });
    // Clients heard of it all as from a single daemon: created, then its states.
    expect(changes[0]).toBe('created');
    await until(() => changes.filter((change) => change === 'updated').length >= 2, 'sessions/changed updates', 20_000);

    const again = await session.send('Say hi');
    await reader.waitFor(turnEnd(again.turnId), 'the turn after the resume');
    expect((await client.listSessions())[0]).toMatchObject({ worker: staying?.worker?.id, nativeSessionId: native });
    const resumed = reader.events.find(noticeWith('resumed'));
    expect(resumed?.seq).toBeGreaterThan(lost.seq);
    const launches = (await readFile(argvLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
    expect(launches).toHaveLength(2);
    expect(launches[1]?.join(' ')).toContain(`--resume=${native}`);
    // One log: seqs 1..n with no gap across the two workers.
    expect(reader.events.map((event) => event.seq)).toEqual(reader.events.map((_, index) => index + 1));
  });

  it('a worker cut off from NATS lets its sessions go; the turn fails, the session resumes elsewhere, the log does not fork', async () => {
    rig = await ClusterRig.start();
    const proxy = await natsProxy(rig.nats.port);
    const logs = await rig.folder('logs');
    const claudeHome = await rig.folder('claude-home');
    const claude = (extra: Record<string, string>) => ({
      'claude-code': {
        ...fakeClaudeOptions({ home: claudeHome, fixture: 'resume', grandchildPids: join(logs, 'tools.log'), extra }),
      },
    });
    const options = { heartbeatTtlMs: 3_000 };
    const cutOff = await rig.node({
      ...options,
      cluster: proxy.url,
      role: 'worker',
      labels: { pool: 'x' },
      harnesses: ['claude-code'],
      harnessOptions: claude({ FAKE_CLAUDE_SILENT_TURN: '2' }),
    });
    const gateway = await rig.node({ ...options, role: 'gateway' });
    const client = await rig.client(gateway);
    const session = await client.createSession('claude-code', { cwd: await rig.folder('work') }, undefined, {
      labels: { pool: 'x' },
    });
    const reader = new EventReader(session.events);
    const first = await session.send('Remember the word pelican.');
    await reader.waitFor(turnEnd(first.turnId), 'the first turn');
    await rig.node({
      ...options,
      role: 'worker',
      labels: { pool: 'x' },
      harnesses: ['claude-code'],
      harnessOptions: claude({}),
    });
    const running = await session.send('Which word was it?');
    await reader.waitFor((event) => event.type === 'turn.started' && event.turnId === running.turnId, 'turn 2');
    const tool = Number((await readFile(join(logs, 'tools.log'), 'utf8')).trim().split('\n')[0]);
    expect(isAlive(tool)).toBe(true);

    proxy.cut();
    const ended = await reader.waitFor(turnEnd(running.turnId), 'the cut-off turn to end', 15_000);
    expect(ended).toMatchObject({ outcome: { status: 'failed', error: { code: 'process_exited' } } });
    await reader.waitFor(noticeWith('lost'), 'the lost notice');
    // The cut-off worker stopped its harness (and the tool process in its group) on its own.
    await until(() => !isAlive(tool), 'the cut-off worker to stop its harness', 20_000);
    proxy.restore();

    const third = await session.send('Say it again.');
    await reader.waitFor(turnEnd(third.turnId), 'the resumed turn');
    expect((await client.listSessions())[0]?.worker).not.toBe(undefined);
    const seqs = reader.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    const stored = await storedSeqs(rig.nats.url, session.id);
    expect(stored).toEqual(seqs);
    expect(cutOff.worker).toBeDefined();
  });

  it('a gateway that goes costs its client only a reconnect to another one, with no gap', async () => {
    rig = await ClusterRig.start();
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: emitterOptions(3_000, 2_000) });
    const gatewayA = await rig.node({ role: 'gateway' });
    const gatewayB = await rig.node({ role: 'gateway' });
    const driver = await rig.client(gatewayB);
    const session = await driver.createSession('codex', { cwd: await rig.folder('work') });
    const onA = await watch(gatewayA.daemon);
    await onA.subscribe(session.id);
    const sent = await session.send('go');
    await until(() => onA.last(session.id) > 500, 'events through gateway A', 20_000);
    await gatewayA.close();
    await onA.closed;
    const onB = await watch(gatewayB.daemon);
    await onB.subscribe(session.id, onA.last(session.id));
    const reader = new EventReader(session.events);
    await reader.waitFor(turnEnd(sent.turnId), 'the end of the turn', 30_000);
    const lastSeq = (await driver.listSessions())[0]?.lastSeq ?? 0;
    await until(() => onB.last(session.id) === lastSeq, 'gateway B to catch up', 20_000);
    const all = [...(onA.seqs.get(session.id) ?? []), ...(onB.seqs.get(session.id) ?? [])];
    expect(problems(all, lastSeq)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });
  });

  it('a NATS restart mid-stream loses and doubles nothing, in the stream and at every client', async () => {
    rig = await ClusterRig.start();
    const options = { heartbeatTtlMs: 6_000 };
    await rig.node({ ...options, role: 'worker', harnesses: ['codex'], harnessOptions: emitterOptions(4_000, 1_500) });
    const gatewayA = await rig.node({ ...options, role: 'gateway' });
    const gatewayB = await rig.node({ ...options, role: 'gateway' });
    const driver = await rig.client(gatewayA);
    const session = await driver.createSession('codex', { cwd: await rig.folder('work') });
    const onA = await watch(gatewayA.daemon);
    const onB = await watch(gatewayB.daemon);
    await Promise.all([onA.subscribe(session.id), onB.subscribe(session.id)]);
    const reader = new EventReader(session.events);
    const sent = await session.send('go');
    await until(() => onA.last(session.id) > 300, 'the stream to flow', 20_000);
    await rig.nats.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await rig.nats.start();
    await reader.waitFor(turnEnd(sent.turnId), 'the end of the turn', 60_000);
    expect(reader.events.find((event) => event.type === 'turn.completed')).toMatchObject({
      outcome: { status: 'completed' },
    });
    const lastSeq = (await driver.listSessions())[0]?.lastSeq ?? 0;
    expect(lastSeq).toBeGreaterThan(4_000);
    await until(() => onA.last(session.id) === lastSeq && onB.last(session.id) === lastSeq, 'both gateways', 20_000);
    for (const watcher of [onA, onB]) {
      expect(problems(watcher.seqs.get(session.id) ?? [], lastSeq)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });
    }
    // The stream itself holds each event once.
    const stored = await storedSeqs(rig.nats.url, session.id);
    expect(stored).toEqual(stored.map((_, index) => index + 1));
    expect(stored.length).toBe(lastSeq);
  });
});
