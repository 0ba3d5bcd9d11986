// The session log on the real SQLite store, watched at its transactions: every write of a loop turn
// commits in one transaction, no subscriber gets an event before the transaction holding it
// committed, and a failed commit loses nothing a client saw while saying clearly what failed
// (docs/architecture/daemon.md, "The store": write before fan-out). Each event is serialized once for
// the store and every subscriber. A dormant session's log holds no buffer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PublishedEvent, SessionLog } from './session-log.js';
import type { SqliteDatabase, SqliteStatement } from './store/sqlite-driver.js';
import { SqliteStore } from './store/sqlite-store.js';

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-commit-'));
  store = await SqliteStore.open(join(dir, 'reins.db'));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Watches the store's connection: which (session number, seq) rows each transaction inserted, and
 * which of them are committed (the driver's transaction returned, so COMMIT ran). `failCommits`
 * makes transactions throw SQLite's disk-full error instead of committing.
 */
function watchCommits(target: SqliteStore) {
  const db = (target as unknown as { db: SqliteDatabase }).db;
  const inserts = (target as unknown as { eventInserts: { statement(rows: number): SqliteStatement } }).eventInserts;
  const committed = new Set<string>();
  let inserted: string[] = [];
  const watch = { committed, transactions: 0, failCommits: false };
  // Every INSERT of events (4 values a row), whatever its row count.
  const statement = inserts.statement.bind(inserts);
  inserts.statement = (rows: number) => {
    const insert = statement(rows);
    return {
      get: (...params: unknown[]) => insert.get(...params),
      all: (...params: unknown[]) => insert.all(...params),
      run: (...params: unknown[]) => {
        const result = insert.run(...params);
        for (let at = 0; at < params.length; at += 4) inserted.push(`${params[at]}:${params[at + 1]}`);
        return result;
      },
    };
  };
  const transaction = db.transaction.bind(db);
  db.transaction = <T>(work: () => T): T => {
    inserted = [];
    const result = transaction(() => {
      const value = work();
      if (watch.failCommits) {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL', errcode: 13 });
      }
      return value;
    });
    watch.transactions++;
    for (const key of inserted) committed.add(key);
    return result;
  };
  return watch;
}

async function openLog(id: string, number: number, lastSeq = 0) {
  const seen: PublishedEvent[] = [];
  const failures: unknown[] = [];
  const log = new SessionLog(id, 'codex', store, 100, lastSeq, {
    published: () => {},
    failed: (error) => failures.push(error),
  });
  const append = (text: string) =>
    log.append({
      type: 'item.delta',
      itemId: 'i1',
      kind: 'text',
      text,
      harness: 'codex',
      sessionId: id,
      turnId: 't1',
      seq: log.nextSeq(),
      at: Date.now(),
    } as ReinsEvent);
  return { id, number, log, seen, failures, append };
}

async function putSession(id: string): Promise<void> {
  await store.putSession({
    sessionId: id,
    harness: 'codex',
    cwd: '/work',
    spec: { cwd: '/work' },
    state: 'open',
    generation: 0,
    createdAt: 1,
    updatedAt: 1,
  });
}

describe('SessionLog on SQLite: write before fan-out', () => {
  it('hands a subscriber no event before the transaction storing it committed, one commit per loop turn', async () => {
    const ids = ['a', 'b', 'c'];
    for (const id of ids) await putSession(id);
    const watch = watchCommits(store);
    const logs = await Promise.all(ids.map((id, index) => openLog(id, index + 1)));
    const early: string[] = [];
    for (const session of logs) {
      session.log.addSink({}, (run) => {
        for (const published of run) {
          if (!watch.committed.has(`${session.number}:${published.seq}`)) early.push(`${session.id}:${published.seq}`);
          session.seen.push(published);
        }
      });
    }
    // Bursts of 1-5 events per session, the loop turning (or only microtasks running) in between.
    let appended = 0;
    for (let round = 0; round < 60; round++) {
      for (const session of logs) {
        for (let index = 0; index <= (round * 7 + session.number) % 5; index++) {
          session.append(`${round}.${index}`);
          appended++;
        }
      }
      if (round % 3 === 0) await Promise.resolve();
      else await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(logs.map((session) => session.log.idle()));

    expect(early).toEqual([]);
    for (const session of logs) {
      const seqs = session.seen.map((published) => published.seq);
      expect(seqs).toEqual(Array.from({ length: session.log.lastSeq }, (_, index) => index + 1));
      const stored = await store.readEventTexts(session.id, 0, 1_000);
      expect(stored.map((row) => row.json)).toEqual(session.seen.map((published) => published.json));
    }
    expect(logs.reduce((sum, session) => sum + session.seen.length, 0)).toBe(appended);
    // Grouped: far fewer commits than events (every write of a loop turn shares one).
    expect(watch.transactions).toBeLessThanOrEqual(61);
  });

  it('serializes each event once: the store and every subscriber get the same JSON text', async () => {
    await putSession('a');
    const a = await openLog('a', 1);
    let serialized = 0;
    // Counts each JSON.stringify that reaches the event's native frame.
    const native = {
      toJSON() {
        serialized++;
        return { method: 'item/agentMessage/delta' };
      },
    };
    const received: string[][] = [[], [], []];
    for (const texts of received) a.log.addSink({}, (run) => texts.push(...run.map((published) => published.json)));
    a.log.append({
      type: 'item.delta',
      itemId: 'i1',
      kind: 'text',
      text: 'once',
      native,
      harness: 'codex',
      sessionId: 'a',
      turnId: 't1',
      seq: a.log.nextSeq(),
      at: 1,
    } as unknown as ReinsEvent);
    await a.log.idle();
    const [stored] = await store.readEventTexts('a', 0, 10);

    expect(serialized).toBe(1);
    expect(stored?.json).toContain('"native":{"method":"item/agentMessage/delta"}');
    for (const texts of received) expect(texts).toEqual([stored?.json]);
  });

  it('fails one bad write alone: the others of its transaction are committed and delivered', async () => {
    await putSession('good');
    await putSession('bad');
    // The store already has bad's seq 1; its log does not know (as if another writer took it).
    await store.appendEvents('bad', [
      { type: 'session.status', status: 'idle', seq: 1, harness: 'codex', sessionId: 'bad', turnId: null, at: 1 },
    ]);
    const watch = watchCommits(store);
    const good = await openLog('good', 1);
    const bad = await openLog('bad', 2);
    for (const session of [good, bad]) session.log.addSink({}, (run) => session.seen.push(...run));

    // One loop turn: both sessions' writes go into the same transaction, which fails on bad's row.
    good.append('one');
    bad.append('refused');
    good.append('two');
    await Promise.all([good.log.idle(), bad.log.idle()]);
    good.append('three');
    await good.log.idle();

    expect(good.seen.map((published) => (published.event as { text: string }).text)).toEqual(['one', 'two', 'three']);
    for (const published of good.seen) expect(watch.committed.has(`1:${published.seq}`)).toBe(true);
    expect((await store.readEvents('good', 0, 10)).map((event) => event.seq)).toEqual([1, 2, 3]);

    // bad: its refused event reached nobody; its subscriber is told why and what to do.
    expect(bad.seen.some((published) => published.event.type === 'item.delta')).toBe(false);
    expect(bad.seen[0]?.event).toMatchObject({
      type: 'error',
      code: 'store_unavailable',
      fatal: true,
      message: expect.stringMatching(
        /cannot record this session in its store .*refused a write \(UNIQUE constraint failed.*\)\. Nothing new is sent to the harness until it can/,
      ),
    });
    expect(bad.failures).toHaveLength(1);
    expect(() => bad.log.assertWritable()).toThrow(expect.objectContaining({ code: 'store_unavailable' }));
  });

  it('loses nothing a client saw when a whole commit fails (disk full), and writes the held error once it can', async () => {
    await putSession('a');
    await putSession('b');
    const watch = watchCommits(store);
    const a = await openLog('a', 1);
    const b = await openLog('b', 2);
    for (const session of [a, b]) session.log.addSink({}, (run) => session.seen.push(...run));
    a.append('stored');
    await a.log.idle();

    watch.failCommits = true;
    a.append('lost 1');
    b.append('lost 2');
    await Promise.all([a.log.idle(), b.log.idle()]);
    for (const session of [a, b]) {
      expect(session.seen.map((published) => published.event.type)).toEqual(
        session === a ? ['item.delta', 'error'] : ['error'],
      );
      const error = session.seen.at(-1)?.event as unknown as { code: string; message: string };
      expect(error).toMatchObject({ code: 'store_unavailable', data: { failure: 'full' } });
      expect(error.message).toMatch(/its disk is full.*free space on that disk/);
    }
    // Every event a client saw before the failure is stored; nothing refused is.
    expect((await store.readEvents('a', 0, 10)).map((event) => event.seq)).toEqual([1]);
    expect(await store.readEvents('b', 0, 10)).toEqual([]);
    await expect(a.log.ensureWritable()).rejects.toMatchObject({ code: 'store_unavailable' });

    watch.failCommits = false;
    await a.log.ensureWritable();
    // The held error is stored at the seq the client saw it at.
    const stored = await store.readEventTexts('a', 0, 10);
    expect(stored.map((row) => row.json)).toEqual(a.seen.map((published) => published.json));
    a.append('after');
    await a.log.idle();
    expect(a.seen.at(-1)?.event).toMatchObject({ type: 'item.delta', text: 'after', seq: 3 });
    expect(watch.committed.has('1:3')).toBe(true);
  });
});

describe('SessionLog of a dormant session', () => {
  it('keeps no event buffer: replay reads the store, and the next event starts a buffer again', async () => {
    await putSession('a');
    const a = await openLog('a', 1);
    for (const text of ['1', '2', '3']) a.append(text);
    await a.log.idle();
    const tailOf = () => (a.log as unknown as { tail?: unknown }).tail;
    expect(tailOf()).toBeDefined();
    const live = (await a.log.read(0, 10)).map((published) => published.json);

    a.log.forgetTail();
    expect(tailOf()).toBeUndefined();
    expect((await a.log.read(0, 10)).map((published) => published.json)).toEqual(live);
    expect(await a.log.read(3, 10)).toEqual([]);

    a.append('4');
    await a.log.idle();
    expect(tailOf()).toBeDefined();
    expect((await a.log.read(3, 10)).map((published) => published.seq)).toEqual([4]);
    // A page stops where the buffer starts: the store's part, then the buffer's.
    expect((await a.log.read(1, 10)).map((published) => published.seq)).toEqual([2, 3]);
  });

  it('holds no list, map or buffer of its own once dormant, and takes events again after', async () => {
    await putSession('a');
    const a = await openLog('a', 1);
    const owner = {};
    a.log.addSink(owner, (run) => a.seen.push(...run));
    for (const text of ['1', '2']) a.append(text);
    await a.log.idle();
    a.log.removeSink(owner);
    a.log.forgetTail();
    // What a dormant session's log keeps: its seqs and references to what its session owns.
    const own = Object.entries(a.log as unknown as Record<string, unknown>).filter(
      ([, value]) => typeof value === 'object' && value !== null,
    );
    expect(own.map(([key]) => key).sort()).toEqual(['hooks', 'store']);

    a.log.addSink(owner, (run) => a.seen.push(...run));
    a.append('3');
    await a.log.idle();
    expect(a.seen.map((published) => published.seq)).toEqual([1, 2, 3]);
    // The store's part, then the new buffer's.
    expect((await a.log.read(0, 10)).map((published) => published.seq)).toEqual([1, 2]);
    expect((await a.log.read(2, 10)).map((published) => published.seq)).toEqual([3]);
  });
});
