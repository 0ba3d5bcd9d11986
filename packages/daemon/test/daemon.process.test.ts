// The daemon in this process, driving the Codex adapter against the fake app-server (recorded
// Codex 0.169.0 transcripts) through @reins/client over a real WebSocket on 127.0.0.1: auth and
// Origin refusal, the same stream as a local session, resume without gap or duplicate after a
// disconnect, interrupt, bad params and unknown sessions, and a shutdown that leaves nothing alive.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError, type ReinsEvent } from '@reins/core';
import { createHarness, liveProcessCount } from '@reins/harnesses';
import { canTrackProcesses, ProcessGroupWatch, streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, readDaemonFile, startDaemon } from '../src/index.js';
import { client, EventReader, errorOf, fakeCodexOptions, RawSocket, RefusedUpgrade, shape, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
const cleanups: Array<() => unknown> = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-daemon-home-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions = {}): Promise<Daemon> {
  daemon = await startDaemon({ home, harnesses: ['codex', 'claude-code'], logger: silent, ...options });
  return daemon;
}

async function connected(target: Daemon) {
  const reins = await client(target.url, target.token);
  cleanups.push(() => reins.close());
  return reins;
}

describe('auth and origin', () => {
  it('refuses initialize with a wrong token, and closes the connection', async () => {
    const target = await start();
    const raw = await RawSocket.open(target.url);
    const reply = await raw.request('initialize', { token: 'not-the-token' });
    expect(reply.error?.data.code).toBe('auth_required');
    expect(reply.error?.data.message).toMatch(/daemon\.json/);
    expect((await raw.closed).code).toBe(1008);
    // Through the client too: a ReinsError with the same code.
    expect((await errorOf(client(target.url, 'wrong'))).code).toBe('auth_required');
  });

  it('refuses any method before initialize, and closes the connection', async () => {
    const target = await start();
    const raw = await RawSocket.open(target.url);
    const reply = await raw.request('session/list');
    expect(reply.error?.data.code).toBe('auth_required');
    expect(reply.error?.message).toMatch(/initialize/);
    expect((await raw.closed).code).toBe(1008);
  });

  it('closes a connection that never initializes', async () => {
    const target = await start({ initializeTimeoutMs: 200 });
    const raw = await RawSocket.open(target.url);
    const closed = await raw.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/initialize/);
  });

  it('refuses a browser Origin that is not allowed, lets an allowed one and a client without Origin in', async () => {
    const target = await start({ allowOrigins: ['http://localhost:5173'] });
    const refused = await RawSocket.open(target.url, { Origin: 'http://evil.example' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RefusedUpgrade);
    expect((refused as RefusedUpgrade).status).toBe(403);
    expect((refused as RefusedUpgrade).body).toMatch(/Origin "http:\/\/evil\.example" is not allowed/);

    const allowed = await RawSocket.open(target.url, { Origin: 'http://localhost:5173' });
    expect((await allowed.request('initialize', { token: target.token })).result).toMatchObject({ protocolVersion: 1 });
    allowed.close();
    const plain = await RawSocket.open(target.url);
    expect((await plain.request('initialize', { token: target.token })).result).toMatchObject({
      harnesses: ['codex', 'claude-code'],
    });
    plain.close();
  });

  it('refuses a Host that is not its loopback address (DNS rebinding)', async () => {
    const target = await start();
    const refused = await RawSocket.open(target.url, { Host: `rebound.example:${target.port}` }).catch(
      (error: unknown) => error,
    );
    expect((refused as RefusedUpgrade).status).toBe(403);
  });

  it('refuses an address other machines reach unless a shared token file is given', async () => {
    const error = await errorOf(startDaemon({ home, host: '0.0.0.0', logger: silent }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/needs a shared secret token: add --token-file PATH/);
  });
});

describe('daemon.json', () => {
  it('is written 0600 with url, pid, token and version, refuses a second daemon, and is removed on close', async () => {
    const target = await start();
    expect(target.infoPath).toBe(join(home, 'daemon.json'));
    expect((await stat(target.infoPath)).mode & 0o777).toBe(0o600);
    const info = await readDaemonFile(home);
    expect(info).toMatchObject({ url: target.url, pid: process.pid, token: target.token, protocolVersion: 2 });
    expect(target.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);

    // The file points at a live process (this one): a second daemon on the same home refuses to start.
    const second = await errorOf(startDaemon({ home, logger: silent }));
    expect(second.message).toMatch(/Another Reins daemon is running/);

    await target.close();
    daemon = undefined;
    await expect(stat(target.infoPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('gets a new token on every start', async () => {
    const first = await start();
    const token = first.token;
    await first.close();
    const second = await start();
    expect(second.token).not.toBe(token);
    expect(second.token.length).toBeGreaterThanOrEqual(32);
  });
});

describe('sessions over the socket', () => {
  it('a full turn gives the same events, in the same order, as driving the adapter directly', async () => {
    const local = await (await createHarness('codex', fakeCodexOptions('text-turn'))).createSession({ cwd: home });
    const localReader = new EventReader(local.events);
    // Codex announces the thread (thread/started) just after createSession returns: wait for it in
    // both runs, so the turn starts at the same point of the stream.
    const threadStarted = (e: ReinsEvent) => e.type === 'session.updated' && e.native?.method === 'thread/started';
    await localReader.waitFor(threadStarted, 'thread/started');
    const localTurn = await local.send('Say hello.');
    await localReader.waitFor((e) => e.type === 'turn.completed' && e.turnId === localTurn.turnId, 'local terminal');
    await local.close();
    await localReader.ended();

    const target = await start();
    const reins = await connected(target);
    const remote = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
    const reader = new EventReader(remote.events);
    expect(remote.harness).toBe('codex');
    await reader.waitFor(threadStarted, 'thread/started');
    const sent = await remote.send('Say hello.');
    expect(sent.delivery).toBe('started');
    await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'remote terminal');
    expect(remote.nativeSessionId).toBe(local.nativeSessionId);
    await remote.close();
    await reader.ended();

    expect(shape(reader.events)).toEqual(shape(localReader.events));
    expect(reader.events.every((event) => event.sessionId === remote.id)).toBe(true);
    expect(streamViolations(reader.events, { settled: true })).toEqual([]);
    expect(reader.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'requested' });
  });

  it('keeps a session when its client disconnects; attach(afterSeq) resumes with no gap and no duplicate', async () => {
    const target = await start();
    const first = await connected(target);
    // Slow frames so the turn is still streaming when the client drops.
    const remote = await first.createSession(
      'codex',
      { cwd: home },
      fakeCodexOptions('text-turn', { FAKE_CODEX_FRAME_DELAY_MS: '40' }),
    );
    const before = new EventReader(remote.events);
    const sent = await remote.send('Say hello.');
    await before.waitFor((e) => e.type === 'item.delta', 'the first delta');
    first.close();
    await before.ended();
    expect(remote.endReason?.code).toBe('process_exited');
    expect(before.events.some((e) => e.type === 'turn.completed')).toBe(false); // dropped mid-turn
    const resumeAfter = remote.lastSeq;
    expect(before.events.map((e) => e.seq)).toEqual(before.events.map((_, index) => index + 1));

    const second = await connected(target);
    const listed = await second.listSessions();
    expect(listed).toMatchObject([{ sessionId: remote.id, harness: 'codex' }]);
    const resumed = await second.attach(remote.id, { afterSeq: resumeAfter });
    expect(resumed.nativeSessionId).toBe(remote.nativeSessionId);
    const after = new EventReader(resumed.events);
    await after.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'terminal after resume');
    expect(after.events[0]?.seq).toBe(resumeAfter + 1);

    // A third view from the start is the reference: before + after must be exactly it.
    const third = await connected(target);
    const whole = await third.attach(remote.id);
    const reference = new EventReader(whole.events);
    await reference.waitFor((e) => e.type === 'turn.completed', 'reference terminal');
    await resumed.close();
    await Promise.all([after.ended(), reference.ended()]);
    const joined: ReinsEvent[] = [...before.events, ...after.events];
    expect(joined.map((e) => e.seq)).toEqual(joined.map((_, index) => index + 1));
    expect(joined).toEqual(reference.events);
    expect(streamViolations(joined, { settled: true })).toEqual([]);
    expect((await third.listSessions())[0]).toMatchObject({ sessionId: remote.id, status: 'closed' });

    // On the wire itself (no client-side dedup): the daemon sends exactly seq afterSeq+1 .. last.
    const raw = await RawSocket.open(target.url);
    await raw.request('initialize', { token: target.token });
    const subscribed = await raw.request('session/subscribe', { sessionId: remote.id, afterSeq: resumeAfter });
    const last = reference.events.at(-1)?.seq as number;
    expect(subscribed.result).toMatchObject({ lastSeq: last, harness: 'codex', status: 'closed' });
    const notified = () =>
      raw.frames.flatMap((frame) => {
        const params = (frame as { method?: string; params?: { event: ReinsEvent } }).params;
        return (frame as { method?: string }).method === 'session/event' && params ? [params.event.seq] : [];
      });
    await raw.waitFor(() => notified().includes(last), 'the replay up to the last event');
    expect(notified()).toEqual(joined.slice(resumeAfter).map((e) => e.seq));
    // The answer came before the first replayed event.
    const answerIndex = raw.frames.findIndex((frame) => (frame as { id?: unknown }).id === subscribed.id);
    const firstEventIndex = raw.frames.findIndex((frame) => (frame as { method?: string }).method === 'session/event');
    expect(answerIndex).toBeLessThan(firstEventIndex);
    raw.close();
  });

  it('interrupt ends the running turn with a cancelled outcome and the session stays usable', async () => {
    const target = await start();
    const reins = await connected(target);
    const remote = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('interrupt'));
    const reader = new EventReader(remote.events);
    const sent = await remote.send('Count slowly.');
    await reader.waitFor((e) => e.type === 'item.delta' && e.turnId === sent.turnId, 'a delta of the turn');
    await remote.interrupt();
    const terminal = await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'terminal');
    expect(terminal).toMatchObject({ outcome: { status: 'cancelled' } });
    const next = await remote.send('Now answer.');
    const nextTerminal = await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === next.turnId, 'next');
    expect(nextTerminal).toMatchObject({ outcome: { status: 'completed' } });
    await remote.close();
    await reader.ended();
    expect(streamViolations(reader.events, { settled: true })).toEqual([]);
  });

  it('a subscribe from before the in-memory tail replays the older events from the store, with no gap', async () => {
    const target = await start({ eventBufferSize: 5 });
    const reins = await connected(target);
    const remote = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
    const reader = new EventReader(remote.events);
    const sent = await remote.send('Say hello.');
    const terminal = await reader.waitFor((e) => e.type === 'turn.completed' && e.turnId === sent.turnId, 'terminal');
    expect(terminal.seq).toBeGreaterThan(5);
    const later = await connected(target);
    const whole = await later.attach(remote.id, { afterSeq: 0 });
    const replay = new EventReader(whole.events);
    await replay.waitFor((e) => e.seq === terminal.seq, 'the terminal again');
    expect(replay.events.slice(0, terminal.seq)).toEqual(reader.events.slice(0, terminal.seq));
    // Within the tail it works the same.
    const recent = await later.attach(remote.id, { afterSeq: terminal.seq - 2 }).catch((error: unknown) => error);
    expect(ReinsError.isInstance(recent) && recent.message).toMatch(/already attached/);
    const third = await connected(target);
    const tail = new EventReader((await third.attach(remote.id, { afterSeq: terminal.seq - 2 })).events);
    await tail.waitFor((e) => e.seq === terminal.seq, 'the terminal from the tail');
    expect(tail.events.map((e) => e.seq)).toEqual([terminal.seq - 1, terminal.seq]);
    // Past the newest event is still refused.
    const raw = await RawSocket.open(target.url);
    await raw.request('initialize', { token: target.token });
    const past = await raw.request('session/subscribe', { sessionId: remote.id, afterSeq: 10_000 });
    expect(past.error?.data.code).toBe('invalid_input');
    expect(past.error?.data.message).toMatch(/past the newest event/);
    raw.close();
  });
});

describe('bad requests', () => {
  it('gives invalid_input with the field named for bad params, and keeps the connection', async () => {
    const target = await start();
    const raw = await RawSocket.open(target.url);
    await raw.request('initialize', { token: target.token });
    const badSpec = await raw.request('session/create', { harness: 'codex', spec: { cwd: '' } });
    expect(badSpec.error?.code).toBe(-32602);
    expect(badSpec.error?.data.code).toBe('invalid_input');
    expect(badSpec.error?.data.message).toMatch(/^Invalid params for session\/create: params\.spec\.cwd/);
    const badHarness = await raw.request('session/create', { harness: 'cursor', spec: { cwd: home } });
    expect(badHarness.error?.data.message).toMatch(/params\.harness/);
    const notOffered = await raw.request('session/create', { harness: 'gemini', spec: { cwd: home } });
    expect(notOffered.error?.data).toMatchObject({ code: 'invalid_input' });
    expect(notOffered.error?.data.message).toMatch(/does not offer the gemini harness/);
    const unknownMethod = await raw.request('session/explode', {});
    expect(unknownMethod.error).toMatchObject({ code: -32601, data: { code: 'invalid_input' } });
    raw.sendText('{ not json');
    const parse = (await raw.waitFor((frame) => (frame as { id?: unknown }).id === null, 'parse error')) as {
      error: { code: number; data: { code: string } };
    };
    expect(parse.error).toMatchObject({ code: -32700, data: { code: 'invalid_input' } });
    // Still usable after all that.
    expect((await raw.request('session/list')).result).toEqual([]);
    raw.close();

    const reins = await connected(target);
    const fromClient = await errorOf(reins.createSession('codex', { cwd: '' }));
    expect(fromClient.code).toBe('invalid_input');
    expect(fromClient.message).toMatch(/spec\.cwd/);
  });

  it('gives invalid_input for an unknown session id', async () => {
    const target = await start();
    const reins = await connected(target);
    const error = await errorOf(reins.attach('no-such-session'));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/Unknown session "no-such-session"/);
    const raw = await RawSocket.open(target.url);
    await raw.request('initialize', { token: target.token });
    for (const method of ['session/send', 'session/interrupt', 'session/close']) {
      const reply = await raw.request(method, { sessionId: 'nope', input: 'x' });
      expect(reply.error?.data.code, method).toBe('invalid_input');
    }
    raw.close();
  });
});

describe('harness/list', () => {
  it('reports discovery and health from the adapters', async () => {
    const options = fakeCodexOptions('text-turn');
    const target = await start({ harnesses: ['codex'], harnessOptions: { codex: options }, probeTimeoutMs: 8_000 });
    const reins = await connected(target);
    const [codex] = await reins.harnesses();
    expect(codex).toMatchObject({
      id: 'codex',
      displayName: 'Codex',
      discovery: { found: true, path: options.binaryPath, version: '0.169.0', source: 'explicit' },
    });
    expect(['ready', 'unhealthy', 'auth_required']).toContain(codex?.health.status);
  });
});

describe('shutdown', () => {
  it('close() stops every harness process group (sessions go dormant, with a notice), closes sockets, removes daemon.json', async () => {
    if (!canTrackProcesses) return;
    const target = await start();
    const reins = await connected(target);
    const watch = new ProcessGroupWatch();
    const sessions = await Promise.all(
      [1, 2].map(() => reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'))),
    );
    const readers = sessions.map((session) => new EventReader(session.events));
    watch.sample();
    // Both sessions run on one Codex app-server (same launch settings: shared by default).
    expect(watch.groupCount).toBe(1);
    expect(liveProcessCount()).toBe(1);

    await target.close();
    daemon = undefined;
    // Each client saw its session go dormant before the socket went; nothing closed the sessions.
    for (const reader of readers) {
      await reader.ended();
      expect(reader.events.at(-1)).toMatchObject({ type: 'notice', kind: 'info', data: { dormant: 'shutdown' } });
      expect(reader.events.some((event) => event.type === 'session.closed')).toBe(false);
    }
    expect((await reins.closed).code).toBe('process_exited');
    expect(liveProcessCount()).toBe(0);
    expect(watch.survivors()).toEqual([]);
    await expect(stat(target.infoPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
