import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './async-queue.js';

async function take<T>(iterator: AsyncIterator<T>, count: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i++) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('AsyncQueue', () => {
  it('hands values over in order whether the consumer waits, lags, or drains the buffer and waits again', async () => {
    const queue = new AsyncQueue<number>();
    const iterator = queue[Symbol.asyncIterator]();
    const first = iterator.next(); // waiting: the next push goes straight to it
    queue.push(1);
    queue.push(2);
    queue.push(3);
    expect(queue.size).toBe(2);
    expect(await first).toEqual({ value: 1, done: false });
    expect(await take(iterator, 2)).toEqual([2, 3]);
    expect(queue.size).toBe(0);
    // Refilled after a full drain, then read partly and refilled again: nothing lost or repeated.
    for (let i = 4; i <= 8; i++) queue.push(i);
    expect(await take(iterator, 2)).toEqual([4, 5]);
    for (let i = 9; i <= 10; i++) queue.push(i);
    expect(queue.size).toBe(5);
    expect(await take(iterator, 5)).toEqual([6, 7, 8, 9, 10]);
    queue.end();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('keeps the order over a long backlog read while it grows (the buffer compacts underneath)', async () => {
    const queue = new AsyncQueue<number>(1_000_000);
    const iterator = queue[Symbol.asyncIterator]();
    const seen: number[] = [];
    let pushed = 0;
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 500; i++) queue.push(pushed++);
      seen.push(...(await take(iterator, 300)));
    }
    queue.end();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) seen.push(next.value);
    expect(seen).toEqual(Array.from({ length: pushed }, (_, index) => index));
  });

  it('reports the high-water mark and releases whenDrained once the consumer is back under it', async () => {
    const queue = new AsyncQueue<number>(3);
    const iterator = queue[Symbol.asyncIterator]();
    expect(queue.push(1)).toBe(true);
    expect(queue.push(2)).toBe(true);
    expect(queue.push(3)).toBe(false);
    let drained = false;
    const waiting = queue.whenDrained().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    expect(await take(iterator, 1)).toEqual([1]);
    await waiting;
    expect(drained).toBe(true);
    expect(await take(iterator, 2)).toEqual([2, 3]);
    await expect(queue.whenDrained()).resolves.toBeUndefined();
  });

  it('refuses values once ended, and a consumer that stops reading drops the buffer', async () => {
    const queue = new AsyncQueue<string>();
    const iterator = queue[Symbol.asyncIterator]();
    queue.push('a');
    queue.push('b');
    expect(await iterator.return?.()).toEqual({ value: undefined, done: true });
    expect(queue.size).toBe(0);
    expect(queue.push('c')).toBe(false);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('has one consumer', () => {
    const queue = new AsyncQueue<number>();
    queue[Symbol.asyncIterator]();
    expect(() => queue[Symbol.asyncIterator]()).toThrow(/already has a consumer/);
  });
});
