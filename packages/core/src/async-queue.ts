// A single-consumer async queue: producers push synchronously, one consumer pulls with for-await.
// It reports when its buffer passes a high-water mark so a producer reading a child's stdout can
// pause that stream (backpressure) instead of buffering without bound.
import { ReinsError } from './errors.js';

export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;
  private iterated = false;
  private drainWaiters: (() => void)[] = [];

  constructor(private readonly highWaterMark = 10_000) {}

  get size(): number {
    return this.buffer.length - this.head;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Adds a value; returns false when the buffer is past its high-water mark (pause the source). */
  push(value: T): boolean {
    if (this.ended) return false;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value, done: false });
      return true;
    }
    this.buffer.push(value);
    return this.size < this.highWaterMark;
  }

  /** Resolves once the consumer has brought the buffer back under the high-water mark. */
  whenDrained(): Promise<void> {
    if (this.size < this.highWaterMark || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** No more values; the consumer finishes after reading what is buffered. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.releaseDrainWaiters();
  }

  private shift(): T | undefined {
    if (this.head >= this.buffer.length) return undefined;
    const value = this.buffer[this.head] as T;
    if (this.head + 1 === this.buffer.length) {
      // Drained: start over, so that no event read already stays reachable from here.
      this.buffer.length = 0;
      this.head = 0;
    } else {
      // A read slot must not keep its event alive: events the consumer is done with would survive
      // young-generation collections and make every GC pause longer (bench/README.md, figure 4).
      this.buffer[this.head] = undefined as T;
      this.head++;
      // Compact now and then so that a long backlog does not keep a long array of empty slots.
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer.splice(0, this.head);
        this.head = 0;
      }
    }
    if (this.drainWaiters.length > 0 && this.size < this.highWaterMark) this.releaseDrainWaiters();
    return value;
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) {
      throw new ReinsError(
        'invalid_input',
        'This event stream already has a consumer; read it in one place and fan it out from there.',
      );
    }
    this.iterated = true;
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (this.size > 0) return Promise.resolve({ value: this.shift() as T, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: (): Promise<IteratorResult<T>> => {
        // The consumer stopped reading: drop what is buffered and refuse more.
        this.buffer.length = 0;
        this.head = 0;
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
