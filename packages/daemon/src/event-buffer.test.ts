// The replay buffer: exactly the events after a seq, bounded, and a clear error for a gap.
import { ReinsError, type ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { EventBuffer } from './event-buffer.js';

const event = (seq: number): ReinsEvent => ({
  type: 'session.status',
  status: 'idle',
  seq,
  harness: 'codex',
  sessionId: 's1',
  turnId: null,
  at: seq,
});

function filled(capacity: number, count: number): EventBuffer {
  const buffer = new EventBuffer(capacity);
  for (let seq = 1; seq <= count; seq++) buffer.push(event(seq));
  return buffer;
}

const seqs = (events: ReinsEvent[]) => events.map((item) => item.seq);

function errorOf(work: () => unknown): ReinsError {
  try {
    work();
  } catch (error) {
    if (ReinsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ReinsError');
}

describe('EventBuffer', () => {
  it('replays exactly the events after a seq', () => {
    const buffer = filled(10, 5);
    expect(seqs(buffer.since(0))).toEqual([1, 2, 3, 4, 5]);
    expect(seqs(buffer.since(3))).toEqual([4, 5]);
    expect(seqs(buffer.since(5))).toEqual([]);
    expect(buffer.lastSeq).toBe(5);
  });

  it('is empty and replays nothing before the first event', () => {
    const buffer = new EventBuffer(3);
    expect(buffer.since(0)).toEqual([]);
    expect(buffer.lastSeq).toBe(0);
    expect(buffer.oldestSeq).toBe(1);
  });

  it('keeps only the newest events once full, in order across the wrap', () => {
    const buffer = filled(3, 8);
    expect(buffer.size).toBe(3);
    expect(buffer.oldestSeq).toBe(6);
    expect(seqs(buffer.since(5))).toEqual([6, 7, 8]);
    expect(seqs(buffer.since(6))).toEqual([7, 8]);
  });

  it('refuses a replay whose next event was dropped, naming the oldest seq available', () => {
    const buffer = filled(3, 8);
    const error = errorOf(() => buffer.since(4));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/oldest seq available is 6/);
    expect(error.data).toMatchObject({ afterSeq: 4, oldestSeq: 6, lastSeq: 8 });
    expect(errorOf(() => buffer.since(0)).code).toBe('invalid_input');
  });

  it('refuses an afterSeq past the newest event, or not a whole number', () => {
    const buffer = filled(3, 2);
    expect(errorOf(() => buffer.since(3)).message).toMatch(/past the newest event .*seq 2/);
    expect(errorOf(() => buffer.since(-1)).code).toBe('invalid_input');
    expect(errorOf(() => buffer.since(1.5)).code).toBe('invalid_input');
  });

  it('refuses events that do not follow on (a gap or a repeat)', () => {
    const buffer = filled(3, 2);
    expect(errorOf(() => buffer.push(event(4))).code).toBe('protocol_error');
    expect(errorOf(() => buffer.push(event(2))).code).toBe('protocol_error');
    buffer.push(event(3));
    expect(buffer.lastSeq).toBe(3);
  });

  it('holds no more JSON than maxChars: big entries push the oldest out, the newest stays whatever its size', () => {
    const entry = (seq: number, chars: number) => ({ seq, json: 'x'.repeat(chars) });
    const buffer = new EventBuffer<{ seq: number; json: string }>(100, 1_000);
    for (let seq = 1; seq <= 10; seq++) buffer.push(entry(seq, 50));
    expect(buffer.size).toBe(10);
    buffer.push(entry(11, 600)); // 1,100 characters: the oldest two go
    expect(buffer.size).toBe(9);
    expect(buffer.oldestSeq).toBe(3);
    expect(buffer.covers(1)).toBe(false);
    expect(buffer.covers(2)).toBe(true);
    buffer.push(entry(12, 5_000)); // alone larger than the bound: kept, everything else goes
    expect(buffer.size).toBe(1);
    expect(buffer.since(11).map((e) => e.seq)).toEqual([12]);
    buffer.push(entry(13, 10)); // the big one goes once another comes
    expect(buffer.since(12).map((e) => e.seq)).toEqual([13]);
    expect(errorOf(() => buffer.since(11)).message).toMatch(/oldest seq available is 13/);
    // Across the wrap of a full ring, the count bound and the character bound together.
    const ring = new EventBuffer<{ seq: number; json: string }>(3, 100);
    for (let seq = 1; seq <= 7; seq++) ring.push(entry(seq, seq === 6 ? 90 : 10));
    expect(ring.since(ring.oldestSeq - 1).map((e) => e.seq)).toEqual([6, 7]);
  });

  it('needs a positive whole capacity', () => {
    expect(errorOf(() => new EventBuffer(0)).code).toBe('invalid_input');
    expect(errorOf(() => new EventBuffer(2.5)).code).toBe('invalid_input');
  });
});
