// The storage interface's contract, run against both implementations (SQLite on a real file, and
// the in-memory reference): sessions, events by (sessionId, seq), process groups. SQLite only:
// what was written is there after reopening, one event-loop turn is one transaction, a bad write
// fails alone, and the file is private.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { DaemonStore, StoredSession } from './store.js';

let dir: string;
const opened: DaemonStore[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-store-'));
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function sqlite(name = 'reins.db'): Promise<SqliteStore> {
  const store = await SqliteStore.open(join(dir, name));
  opened.push(store);
  return store;
}

function session(id: string, extra: Partial<StoredSession> = {}): StoredSession {
  return {
    sessionId: id,
    harness: 'codex',
    cwd: '/work',
    spec: { cwd: '/work', model: 'm1' },
    state: 'open',
    generation: 0,
    createdAt: 100,
    updatedAt: 100,
    ...extra,
  };
}

function event(sessionId: string, seq: number, at = 1_000 + seq): ReinsEvent {
  return { type: 'session.status', status: 'idle', seq, harness: 'codex', sessionId, turnId: null, at };
}

const implementations: Array<[string, () => Promise<DaemonStore>]> = [
  ['sqlite', () => sqlite()],
  ['memory', async () => new MemoryStore()],
];

describe.each(implementations)('DaemonStore contract (%s)', (_name, make) => {
  it('keeps sessions with their settings, patches them, and reports the last seq', async () => {
    const store = await make();
    await store.putSession(session('a', { harnessOptions: { binaryPath: '/bin/x' }, hadBaseEnv: true }));
    await store.putSession(session('b', { createdAt: 200 }));
    await store.appendEvents('a', [event('a', 1), event('a', 2)]);
    await store.updateSession('a', { nativeSessionId: 'n-1', title: 'T', model: 'm2', effort: 'high', generation: 2 });
    await store.updateSession('b', { state: 'closed', closedAt: 300, spec: { cwd: '/work', model: 'm9' } });
    const loaded = await store.loadSessions();
    expect(loaded.map((entry) => entry.sessionId)).toEqual(['a', 'b']);
    expect(loaded[0]).toMatchObject({
      sessionId: 'a',
      harnessOptions: { binaryPath: '/bin/x' },
      hadBaseEnv: true,
      nativeSessionId: 'n-1',
      title: 'T',
      model: 'm2',
      effort: 'high',
      generation: 2,
      state: 'open',
      lastSeq: 2,
      updatedAt: 1_002,
    });
    expect(loaded[1]).toMatchObject({ state: 'closed', closedAt: 300, lastSeq: 0, spec: { model: 'm9' } });
    // The turn in progress is kept, and cleared with null.
    await store.updateSession('a', { openTurn: { turnId: 'r1.turn_2', seq: 2 } });
    expect((await store.loadSessions())[0]?.openTurn).toEqual({ turnId: 'r1.turn_2', seq: 2 });
    await store.updateSession('a', { openTurn: null });
    expect((await store.loadSessions())[0]?.openTurn).toBeUndefined();
  });

  it('reads events back after a seq, in order, limited', async () => {
    const store = await make();
    await store.putSession(session('a'));
    await store.putSession(session('b'));
    await store.appendEvents(
      'a',
      [1, 2, 3, 4, 5].map((seq) => event('a', seq)),
    );
    await store.appendEvents('b', [event('b', 1)]);
    expect((await store.readEvents('a', 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.readEvents('a', 2, 2)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await store.readEvents('a', 5, 10)).toEqual([]);
    expect(await store.readEvents('a', 0, 1)).toEqual([event('a', 1)]);
    expect((await store.readEvents('b', 0, 10)).map((e) => e.sessionId)).toEqual(['b']);
    // Where a store keeps text, the same events come back as the text they were stored as.
    if (store.readEventTexts) {
      const texts = await store.readEventTexts('a', 2, 2);
      expect(texts).toEqual((await store.readEvents('a', 2, 2)).map((e) => ({ seq: e.seq, json: JSON.stringify(e) })));
      expect(await store.readEventTexts('a', 5, 10)).toEqual([]);
      expect(await store.readEventTexts('nobody', 0, 10)).toEqual([]);
    }
  });

  it('refuses a seq that is already stored', async () => {
    const store = await make();
    await store.putSession(session('a'));
    await store.appendEvents('a', [event('a', 1)]);
    await expect(store.appendEvents('a', [event('a', 1)])).rejects.toBeTruthy();
    expect((await store.readEvents('a', 0, 10)).map((e) => e.seq)).toEqual([1]);
  });

  it('stores a long write whole and in order, or none of it', async () => {
    const store = await make();
    await store.putSession(session('a'));
    const seqs = (from: number, count: number) => Array.from({ length: count }, (_, index) => from + index);
    // 40 events: more than one INSERT's rows in SQLite (16 a statement).
    await store.appendEvents(
      'a',
      seqs(1, 40).map((seq) => event('a', seq)),
    );
    expect((await store.readEvents('a', 0, 100)).map((e) => e.seq)).toEqual(seqs(1, 40));
    // A write whose 35th event repeats a stored seq fails whole: its first 34, in earlier statements, too.
    const bad = seqs(41, 34).map((seq) => event('a', seq));
    await expect(store.appendEvents('a', [...bad, event('a', 40)])).rejects.toBeTruthy();
    expect((await store.readEvents('a', 0, 100)).map((e) => e.seq)).toEqual(seqs(1, 40));
    await store.appendEvents('a', bad);
    expect((await store.readEvents('a', 40, 100)).map((e) => e.seq)).toEqual(seqs(41, 34));
  });

  it('deletes a session with all its events', async () => {
    const store = await make();
    await store.putSession(session('a'));
    await store.appendEvents('a', [event('a', 1), event('a', 2)]);
    await store.deleteSession('a');
    expect(await store.loadSessions()).toEqual([]);
    expect(await store.readEvents('a', 0, 10)).toEqual([]);
  });

  it('keeps process groups until they are ended', async () => {
    const store = await make();
    const group = {
      id: 'b:10:5',
      pgid: 10,
      pid: 10,
      startTicks: '5',
      bootId: 'b',
      label: 'codex app-server',
      startedAt: 1,
    };
    await store.recordProcessGroup(group);
    await store.recordProcessGroup({ ...group, id: 'b:11:6', pgid: 11, pid: 11, startTicks: '6', sessionId: 's' });
    await store.endProcessGroup('b:10:5', 2);
    expect(await store.openProcessGroups()).toEqual([
      { ...group, id: 'b:11:6', pgid: 11, pid: 11, startTicks: '6', sessionId: 's' },
    ]);
  });
});

describe('SqliteStore', () => {
  it('has everything after a reopen (what resolved was committed)', async () => {
    const first = await sqlite();
    await first.putSession(session('a'));
    await first.appendEvents('a', [event('a', 1), event('a', 2)]);
    await first.close();
    opened.splice(0);
    const second = await sqlite();
    expect((await second.loadSessions())[0]).toMatchObject({ sessionId: 'a', lastSeq: 2 });
    expect(await second.readEvents('a', 0, 10)).toEqual([event('a', 1), event('a', 2)]);
  });

  it('commits every write of one event-loop turn together; one bad write fails alone', async () => {
    const store = await sqlite();
    await store.putSession(session('a'));
    await store.putSession(session('b'));
    await store.appendEvents('a', [event('a', 1)]);
    const results = await Promise.allSettled([
      store.appendEvents('a', [event('a', 2)]),
      store.appendEvents('a', [event('a', 1)]), // already there
      store.appendEvents('b', [event('b', 1)]),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.readEvents('a', 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await store.readEvents('b', 0, 10)).map((e) => e.seq)).toEqual([1]);
  });

  it('stores the JSON it is given for an event (serialized once by the daemon)', async () => {
    const store = await sqlite();
    await store.putSession(session('a'));
    const first = event('a', 1);
    await store.appendEvents('a', [first], [JSON.stringify(first)]);
    expect(await store.readEvents('a', 0, 1)).toEqual([first]);
  });

  it('creates the file private (0600) and holds it against a second opener', async () => {
    const store = await sqlite();
    expect((await stat(store.location)).mode & 0o777).toBe(0o600);
    const second = await SqliteStore.open(store.location).then(
      () => 'opened',
      (error: unknown) => error,
    );
    expect(second).toMatchObject({ code: 'invalid_input', data: { reason: 'locked' } });
    await store.close();
    opened.splice(0);
    // Released on close.
    await sqlite();
  });

  it('refuses writes after close with a clear error', async () => {
    const store = await sqlite();
    await store.close();
    opened.splice(0);
    await expect(store.putSession(session('a'))).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
