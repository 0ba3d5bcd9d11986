// The durable session logic end to end through a real WebSocket and a real SQLite file, on an
// in-process scripted harness (test/scripted-harness.ts) so every case is exact: sessions survive
// a restart dormant with their whole log; a send resumes the native conversation (the harness is
// asked to resume that id) and the log goes on at the next seq with a notice and fresh turn ids;
// a process that dies leaves the session dormant; a resume that fails, or that comes back as
// another conversation, is resume_failed and never a fresh start; settings changed while dormant
// are used by the resume; close and delete of dormant sessions; background work, pending
// permissions and running turns are never evicted.
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { streamViolations } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, EventReader, errorOf, silent } from './helpers.js';
import { ScriptedHarness, type ScriptedHarnessOptions } from './scripted-harness.js';

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-sessions-'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  await rm(home, { recursive: true, force: true });
});

async function start(harness: ScriptedHarness, options: DaemonOptions = {}): Promise<Daemon> {
  daemon = await startDaemon({
    home,
    harnesses: ['codex'],
    logger: silent,
    createHarness: async () => harness,
    ...options,
  });
  return daemon;
}

async function restart(harness: ScriptedHarness, options: DaemonOptions = {}): Promise<Daemon> {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  return start(harness, options);
}

async function connected(target: Daemon): Promise<ReinsClient> {
  const reins = await client(target.url, target.token);
  clients.push(reins);
  return reins;
}

const scripted = (options: ScriptedHarnessOptions = {}) => new ScriptedHarness('codex', options);
const terminalOf = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;

/** The whole log of a session, read by a fresh subscription from seq 0, up to `lastSeq`. */
async function replay(reins: ReinsClient, sessionId: string, lastSeq: number): Promise<ReinsEvent[]> {
  const session = await reins.attach(sessionId, { afterSeq: 0 });
  const reader = new EventReader(session.events);
  if (lastSeq > 0) await reader.waitFor((e) => e.seq === lastSeq, `seq ${lastSeq} of ${sessionId}`);
  await session.detach();
  return reader.events;
}

describe('restart', () => {
  it('brings sessions back dormant with their log; a send resumes the same conversation and the log goes on', async () => {
    const harness = scripted();
    const first = await start(harness);
    const reins = await connected(first);
    const before = new Map<string, ReinsEvent[]>();
    const natives = new Map<string, string>();
    for (const prompt of ['one', 'two', 'three']) {
      const session = await reins.createSession('codex', { cwd: home, model: 'model-a' });
      const reader = new EventReader(session.events);
      const sent = await session.send(prompt, { clientMessageId: `bubble-${prompt}` });
      await reader.waitFor(terminalOf(sent.turnId), `terminal of ${prompt}`);
      await reader.waitFor(
        (e) => e.type === 'session.status' && e.status === 'idle' && e.turnId === null && e.seq > 4,
        'idle',
      );
      before.set(session.id, [...reader.events]);
      natives.set(session.id, session.nativeSessionId as string);
    }

    const second = await restart(harness);
    const again = await connected(second);
    const listed = await again.listSessions();
    expect(listed).toHaveLength(3);
    for (const listing of listed) {
      const events = before.get(listing.sessionId) as ReinsEvent[];
      expect(listing).toMatchObject({
        status: 'dormant',
        cwd: home,
        model: 'model-a',
        nativeSessionId: natives.get(listing.sessionId),
      });
      // The shutdown notice is the one event after what the client had.
      expect(listing.lastSeq).toBe((events.at(-1) as ReinsEvent).seq + 1);
      const log = await replay(again, listing.sessionId, listing.lastSeq);
      expect(log.slice(0, events.length)).toEqual(events);
      expect(log.at(-1)).toMatchObject({ type: 'notice', data: { dormant: 'shutdown' } });
    }

    const target = listed[1] as (typeof listed)[number];
    const resumed = await again.attach(target.sessionId, { afterSeq: target.lastSeq });
    const reader = new EventReader(resumed.events);
    const creates = harness.sessions.length;
    const sent = await resumed.send('four', { clientMessageId: 'bubble-four' });
    // One new process, asked to resume exactly the stored conversation, with the stored settings.
    expect(harness.sessions).toHaveLength(creates + 1);
    expect(harness.last.spec).toMatchObject({
      cwd: home,
      model: 'model-a',
      resume: { nativeSessionId: target.nativeSessionId },
    });
    expect(harness.last.sends[0]?.options).toEqual({ clientMessageId: 'bubble-four' });
    // Turn ids of the new process cannot clash with the first one's.
    expect(sent.turnId).toBe('r1.turn_1');
    await reader.waitFor(terminalOf(sent.turnId), 'the resumed turn');
    expect(reader.events[0]?.seq).toBe(target.lastSeq + 1);
    expect(reader.events.map((e) => e.seq)).toEqual(reader.events.map((_, index) => target.lastSeq + 1 + index));
    expect(reader.events.every((e) => e.sessionId === target.sessionId)).toBe(true);
    const notice = reader.events.find((e) => e.type === 'notice');
    expect(notice).toMatchObject({
      kind: 'info',
      data: { resumed: { nativeSessionId: target.nativeSessionId, generation: 1 } },
    });
    expect((notice as { message: string }).message).toMatch(/Resumed the codex conversation/);
    const user = reader.events.find((e) => e.type === 'item.completed' && e.item.kind === 'user_message');
    expect(user).toMatchObject({ turnId: 'r1.turn_1', item: { clientMessageId: 'bubble-four', text: 'four' } });

    // The whole log, both processes, is one sound stream.
    const whole = await replay(await connected(second), target.sessionId, resumed.lastSeq);
    expect(streamViolations(whole, { settled: true })).toEqual([]);
    expect((await again.listSessions()).find((entry) => entry.sessionId === target.sessionId)?.status).toBe('idle');
  });
});

describe('crash', () => {
  it('a turn a killed daemon left running is ended failed at the next start, so the log stays sound', async () => {
    const harness = scripted();
    const first = await start(harness);
    const reins = await connected(first);
    const session = await reins.createSession('codex', { cwd: home });
    const reader = new EventReader(session.events);
    harness.last.hold = true;
    const sent = await session.send('a long one');
    await reader.waitFor((e) => e.type === 'item.completed' && e.item.kind === 'user_message', 'the turn under way');
    harness.last.stream.emit({
      type: 'item.started',
      item: { kind: 'agent_message', id: 'half', status: 'running', text: '' },
    });
    await reader.waitFor((e) => e.type === 'item.started' && e.item.id === 'half', 'an item left open');
    // The store files as a SIGKILL would leave them right now (every write so far is committed).
    const crashed = join(home, 'crashed');
    await mkdir(crashed, { mode: 0o700 });
    for (const name of ['reins.db', 'reins.db-wal'])
      await copyFile(join(home, name), join(crashed, name)).catch(() => {});
    const copy = await startDaemon({
      home: crashed,
      harnesses: ['codex'],
      logger: silent,
      createHarness: async () => harness,
    });
    try {
      const other = await client(copy.url, copy.token);
      clients.push(other);
      const [listing] = await other.listSessions();
      expect(listing).toMatchObject({ sessionId: session.id, status: 'dormant' });
      const replay = await other.attach(session.id, { afterSeq: 0 });
      const log = new EventReader(replay.events);
      await log.waitFor((e) => e.seq === listing?.lastSeq, 'the whole log');
      expect(log.events.at(-2)).toMatchObject({
        type: 'item.completed',
        turnId: sent.turnId,
        item: { id: 'half', status: 'failed' },
      });
      expect(log.events.at(-1)).toMatchObject({
        type: 'turn.completed',
        turnId: sent.turnId,
        outcome: { status: 'failed', error: { code: 'process_exited' } },
      });
      expect(streamViolations(log.events, { settled: true })).toEqual([]);
    } finally {
      await copy.close();
    }
  });
});

describe('dormant sessions', () => {
  it('a process that dies leaves the session dormant with a warning; the next send resumes it', async () => {
    const harness = scripted();
    const target = await start(harness);
    const reins = await connected(target);
    const session = await reins.createSession('codex', { cwd: home });
    const reader = new EventReader(session.events);
    const native = session.nativeSessionId;
    harness.last.die('killed by the test');
    const warning = await reader.waitFor((e) => e.type === 'notice' && e.kind === 'warning', 'the warning');
    expect((warning as { message: string }).message).toMatch(/killed by the test.*dormant/);
    expect(reader.events.some((e) => e.type === 'session.closed')).toBe(false);
    expect((await reins.listSessions())[0]?.status).toBe('dormant');
    const sent = await session.send('still there?');
    await reader.waitFor(terminalOf(sent.turnId), 'the turn after the resume');
    expect(harness.last.spec.resume).toEqual({ nativeSessionId: native });
  });

  it('a resume that fails is resume_failed, logged, and never a fresh start; the session stays dormant', async () => {
    const harness = scripted();
    const first = await start(harness);
    const session = await (await connected(first)).createSession('codex', { cwd: home });
    await restart(scripted({ failResume: true }));
    const failing = scripted({ failResume: true });
    const second = await restart(failing);
    const reins = await connected(second);
    const attached = await reins.attach(session.id, { afterSeq: 0 });
    const reader = new EventReader(attached.events);
    const error = await errorOf(attached.send('hello?'));
    expect(error.code).toBe('resume_failed');
    expect(error.message).toMatch(/Could not resume the codex conversation/);
    expect(failing.sessions).toEqual([]); // no fresh session was started instead
    const logged = await reader.waitFor((e) => e.type === 'error', 'the logged error');
    expect(logged).toMatchObject({ code: 'resume_failed', fatal: false });
    expect((await reins.listSessions())[0]?.status).toBe('dormant');
  });

  it('a resume that comes back as another conversation is refused (resume_failed)', async () => {
    const first = await start(scripted());
    const session = await (await connected(first)).createSession('codex', { cwd: home });
    const other = scripted({ resumeAsOther: true });
    const second = await restart(other);
    const reins = await connected(second);
    const error = await errorOf((await reins.attach(session.id)).send('hello?'));
    expect(error.code).toBe('resume_failed');
    expect(error.message).toMatch(/instead of/);
    expect(other.sessions.every((entry) => entry.closed)).toBe(true);
  });

  it('settings changed while dormant apply to the resume; close logs session.closed; delete forgets it all', async () => {
    const harness = scripted();
    const first = await start(harness);
    const created = await (await connected(first)).createSession('codex', { cwd: home, model: 'model-a' });
    const second = await restart(harness);
    const reins = await connected(second);
    const session = await reins.attach(created.id);
    expect(await session.setModel('model-b')).toEqual({ applied: 'next_turn' });
    expect(await session.setEffort('high')).toEqual({ applied: 'next_turn' });
    await session.send('go');
    expect(harness.last.spec).toMatchObject({ model: 'model-b', effort: 'high', resume: {} });

    const third = await restart(harness);
    const later = await connected(third);
    const dormant = await later.attach(created.id);
    const reader = new EventReader(dormant.events);
    await dormant.close();
    await reader.ended();
    expect(reader.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'requested' });
    expect((await later.listSessions())[0]?.status).toBe('closed');
    expect((await errorOf(later.attach(created.id).then((s) => s.send('again')))).code).toBe('invalid_input');

    await later.deleteSession(created.id);
    expect(await later.listSessions()).toEqual([]);
    expect((await errorOf(later.attach(created.id))).message).toMatch(/Unknown session/);
    const fourth = await restart(harness);
    expect(await (await connected(fourth)).listSessions()).toEqual([]);
  });
});

describe('eviction (scripted)', () => {
  it('never evicts background work, a pending permission or a running turn; an idle witness is evicted meanwhile', async () => {
    const harness = scripted();
    const target = await start(harness, { idleTtlMs: 600 });
    const reins = await connected(target);
    const background = await reins.createSession('codex', { cwd: home });
    const backgroundProcess = harness.last;
    backgroundProcess.background('bg-1', false);
    const permission = await reins.createSession('codex', { cwd: home });
    const permissionProcess = harness.last;
    permissionProcess.requestPermission('r1');
    const turn = await reins.createSession('codex', { cwd: home });
    harness.last.hold = true;
    const turnProcess = harness.last;
    const held = await turn.send('take your time');
    const witness = await reins.createSession('codex', { cwd: home });
    const witnessReader = new EventReader(witness.events);
    // The witness was used last: once it sleeps, the three older ones were past the TTL too.
    await witnessReader.waitFor(
      (e) => e.type === 'notice' && (e.data as { dormant?: string })?.dormant === 'idle',
      'the witness asleep',
      10_000,
    );
    const status = async (id: string) => (await reins.listSessions()).find((entry) => entry.sessionId === id)?.status;
    expect(await status(witness.id)).toBe('dormant');
    expect(await status(background.id)).toBe('idle');
    expect(await status(permission.id)).toBe('idle');
    expect(await status(turn.id)).toBe('running');
    expect([backgroundProcess, permissionProcess, turnProcess].map((session) => session.closed)).toEqual([
      false,
      false,
      false,
    ]);

    // Once the work is done they sleep like any other.
    const reader = new EventReader(turn.events);
    turnProcess.release();
    await reader.waitFor(terminalOf(held.turnId), 'the held turn');
    backgroundProcess.background('bg-1', true);
    await permission.respondToPermission('r1', { behavior: 'deny' });
    const asleep = async () => {
      for (;;) {
        const listed = await reins.listSessions();
        if (listed.every((entry) => entry.status === 'dormant')) return listed;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    expect((await asleep()).length).toBe(4);
  });

  it('over --max-live-sessions the least recently used idle session sleeps; it wakes on send', async () => {
    const harness = scripted();
    const target = await start(harness, { maxLiveSessions: 2, idleTtlMs: 0 });
    const reins = await connected(target);
    const a = await reins.createSession('codex', { cwd: home });
    const aReader = new EventReader(a.events);
    const b = await reins.createSession('codex', { cwd: home });
    const bTurn = await b.send('b is used');
    const bReader = new EventReader(b.events);
    await bReader.waitFor(terminalOf(bTurn.turnId), 'b turn');
    await reins.createSession('codex', { cwd: home });
    await aReader.waitFor(
      (e) => e.type === 'notice' && (e.data as { dormant?: string })?.dormant === 'lru',
      'a asleep',
    );
    const listed = await reins.listSessions();
    expect(listed.map((entry) => entry.status)).toEqual(['dormant', 'idle', 'idle']);
    // a wakes on send: then b is the least recently used and sleeps.
    const woke = await a.send('wake up');
    await aReader.waitFor(terminalOf(woke.turnId), 'a turn after waking');
    await bReader.waitFor(
      (e) => e.type === 'notice' && (e.data as { dormant?: string })?.dormant === 'lru',
      'b asleep',
    );
    expect((await reins.listSessions()).map((entry) => entry.status)).toEqual(['idle', 'dormant', 'idle']);
  });
});
