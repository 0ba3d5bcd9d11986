// SessionLog on a store that stops writing (a full disk) and starts again: what it refused is
// dropped, the error and the closing of the stored open turn are seen live and written once the
// store writes again, new work is refused meanwhile, and the log never has a terminal without its start.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { type PublishedEvent, SessionLog } from './session-log.js';
import { MemoryStore } from './store/memory-store.js';

/** A memory store whose writes fail like SQLite's on a full disk while `full` is set. */
class FullableStore extends MemoryStore {
  full = false;
  /** Appends taken resolve a loop turn later (as SQLite's, committed on setImmediate). */
  slow = false;
  private refuse(): Promise<void> {
    return Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
  }
  override async appendEvents(sessionId: string, events: readonly ReinsEvent[]): Promise<void> {
    if (this.full) return this.refuse();
    if (this.slow) await new Promise((resolve) => setImmediate(resolve));
    return super.appendEvents(sessionId, events);
  }
  checkWritable(): Promise<void> {
    return this.full ? this.refuse() : Promise.resolve();
  }
}

const base = { harness: 'codex', sessionId: 's1', at: 1 } as const;

function rig() {
  const store = new FullableStore();
  const seen: PublishedEvent[] = [];
  const stored: ReinsEvent[] = [];
  const failures: unknown[] = [];
  const log = new SessionLog('s1', 'codex', store, 100, 0, {
    published: (event) => stored.push(event),
    failed: (error) => failures.push(error),
  });
  log.addSink({}, (run) => seen.push(...run));
  const append = (event: Record<string, unknown>, turnId: string | null = 't1') =>
    log.append({ ...base, ...event, turnId, seq: log.nextSeq() } as ReinsEvent);
  const item = { kind: 'agent_message', id: 'i1', text: '' };
  return { store, log, seen, stored, failures, append, item };
}

async function storedEvents(store: MemoryStore): Promise<ReinsEvent[]> {
  return store.readEvents('s1', 0, 1_000);
}

describe('SessionLog when the store cannot write', () => {
  it('fails the stored turn live, refuses new work, and writes the closing once the store writes again', async () => {
    const { store, log, seen, stored, failures, append, item } = rig();
    await store.putSession({ sessionId: 's1' } as never);
    append({ type: 'turn.started', input: { text: 'hi' } });
    append({ type: 'item.started', item });
    await log.idle();
    expect(log.lastSeq).toBe(2);

    store.full = true;
    append({ type: 'item.delta', itemId: 'i1', delta: { kind: 'text', text: 'lost' } });
    await log.idle();
    expect(failures).toHaveLength(1);
    // Live: the refused delta never; the error, the open item failed, the turn failed.
    const live = seen.slice(2).map((entry) => entry.event);
    expect(live.map((event) => [event.seq, event.type])).toEqual([
      [3, 'error'],
      [4, 'item.completed'],
      [5, 'turn.completed'],
    ]);
    expect(live[0]).toMatchObject({ code: 'store_unavailable', fatal: true, turnId: 't1', data: { failure: 'full' } });
    expect((live[0] as { message: string }).message).toMatch(/disk is full.*free space/);
    expect(live[2]).toMatchObject({ outcome: { status: 'failed', error: { code: 'store_unavailable' } } });
    expect(log.isUnavailable).toBe(true);

    // Nothing is taken meanwhile, and new work is refused with the same code.
    append({ type: 'item.delta', itemId: 'i1', delta: { kind: 'text', text: 'also lost' } });
    await expect(log.ensureWritable()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(() => log.assertWritable()).toThrow(/cannot record/);
    expect((await storedEvents(store)).map((event) => event.seq)).toEqual([1, 2]);
    // A replay from memory still serves what clients saw, in order.
    expect((await log.read(0, 10)).map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);

    store.full = false;
    await log.ensureWritable();
    expect(log.isUnavailable).toBe(false);
    expect((await storedEvents(store)).map((event) => [event.seq, event.type])).toEqual([
      [1, 'turn.started'],
      [2, 'item.started'],
      [3, 'error'],
      [4, 'item.completed'],
      [5, 'turn.completed'],
    ]);
    expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    // The log goes on after them.
    append({ type: 'turn.started', input: { text: 'again' } }, 't2');
    await log.idle();
    expect((await storedEvents(store)).at(-1)).toMatchObject({ seq: 6, type: 'turn.started' });
  });

  it('writes no terminal for a turn whose turn.started was refused', async () => {
    const { store, log, seen, append } = rig();
    await store.putSession({ sessionId: 's1' } as never);
    append({ type: 'session.status', status: 'idle' }, null);
    await log.idle();
    store.full = true;
    append({ type: 'turn.started', input: { text: 'hi' } });
    await log.idle();
    expect(seen.map((entry) => [entry.seq, entry.event.type, entry.event.turnId])).toEqual([
      [1, 'session.status', null],
      [2, 'error', null],
    ]);
    store.full = false;
    await log.ensureWritable();
    expect((await storedEvents(store)).map((event) => event.type)).toEqual(['session.status', 'error']);
  });

  it('puts the error after the writes in flight when the check fails', async () => {
    const { store, log, seen, append } = rig();
    await store.putSession({ sessionId: 's1' } as never);
    store.slow = true;
    append({ type: 'session.status', status: 'running' }, null);
    store.full = true;
    await expect(log.ensureWritable()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(seen.map((entry) => [entry.seq, entry.event.type])).toEqual([
      [1, 'session.status'],
      [2, 'error'],
    ]);
  });

  it('learns that the store cannot write from a check before new work, and says so', async () => {
    const { store, log, seen, failures } = rig();
    await store.putSession({ sessionId: 's1' } as never);
    store.full = true;
    await expect(log.ensureWritable()).rejects.toMatchObject({ code: 'store_unavailable', retryable: true });
    expect(failures).toHaveLength(1);
    expect(seen.map((entry) => [entry.seq, entry.event.type])).toEqual([[1, 'error']]);
    store.full = false;
    await log.ensureWritable();
    expect((await storedEvents(store)).map((event) => event.type)).toEqual(['error']);
    await log.ensureWritable();
    expect(failures).toHaveLength(1);
  });
});

describe('SessionLog memory while a harness streams big events', () => {
  /** A memory store that counts the reads that reach it. */
  class CountingStore extends MemoryStore {
    reads = 0;
    override async readEvents(sessionId: string, afterSeq: number, limit: number): Promise<ReinsEvent[]> {
      this.reads++;
      return super.readEvents(sessionId, afterSeq, limit);
    }
  }

  it('keeps only the newest ~1 MiB of event text in memory, and no event object it was given', async () => {
    const store = new CountingStore();
    await store.putSession({ sessionId: 's1' } as never);
    const log = new SessionLog('s1', 'codex', store, 1_000, 0, { published() {}, failed() {} });
    const given: ReinsEvent[] = [];
    const big = 'x'.repeat(64 * 1024);
    for (let index = 0; index < 40; index++) {
      const event = {
        ...base,
        type: 'item.delta',
        itemId: 'i1',
        delta: { kind: 'text', text: big },
        turnId: 't1',
        seq: log.nextSeq(),
      } as unknown as ReinsEvent;
      given.push(event);
      log.append(event);
    }
    await log.idle();
    // 40 x 64 KiB: the newest come from memory, as the text stored, parsed anew when read.
    const newest = await log.read(35, 10);
    expect(store.reads).toBe(0);
    expect(newest.map((entry) => entry.seq)).toEqual([36, 37, 38, 39, 40]);
    expect(newest[4]?.event).toEqual(given[39]);
    expect(newest[4]?.event).not.toBe(given[39]);
    // The whole stream is not held: the start is read from the store, every seq once, in order.
    const all = await log.read(0, 100);
    expect(store.reads).toBe(1);
    expect(all.map((entry) => entry.seq).slice(0, 3)).toEqual([1, 2, 3]);
    expect(all[0]?.json).toBe(JSON.stringify(given[0]));
  });
});
