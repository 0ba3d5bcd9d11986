// The bounded in-memory tail of one daemon session's log: the newest `capacity` entries in seq
// order, and no more of their JSON than `maxChars` (a harness that streams big frames does not pin
// its output in memory), so a client that reconnects usually replays from memory; older entries
// are read from the store. `since` tells a caller that asks for more than the buffer reaches the
// oldest seq it holds rather than handing it a gap.
import { ReinsError, type ReinsEvent } from '@reins/core';

/** Events kept in memory per live session (older ones are read from the store). */
export const DEFAULT_EVENT_BUFFER_SIZE = 1_000;
/**
 * JSON characters kept in memory per live session; the newest entry is kept whatever its size.
 * 1,000 ordinary events (deltas of a few hundred characters) fit; a stream of big frames keeps
 * only its last few, so the daemon's memory follows the largest frame, not the output
 * (docs/architecture/daemon.md, "Memory while a harness streams").
 */
export const DEFAULT_EVENT_BUFFER_CHARS = 1024 * 1024;

/** An entry that carries its JSON (`json`) counts that against the buffer's `maxChars`. */
export class EventBuffer<T extends { seq: number; json?: string } = ReinsEvent> {
  /** Grows up to `capacity` as entries come (a session that never streams costs nothing). */
  private ring: (T | undefined)[] = [];
  /** Index in `ring` of the oldest event held. */
  private start = 0;
  private count = 0;
  private newestSeq = 0;
  /** JSON characters of the entries held. */
  private chars = 0;

  constructor(
    readonly capacity = DEFAULT_EVENT_BUFFER_SIZE,
    readonly maxChars = DEFAULT_EVENT_BUFFER_CHARS,
  ) {
    EventBuffer.checkCapacity(capacity);
  }

  /** Throws invalid_input unless `capacity` can size a buffer (for owners that make theirs later). */
  static checkCapacity(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new ReinsError('invalid_input', `The event buffer size must be a positive integer, got ${capacity}.`);
    }
  }

  /** seq of the newest event (0 before the first). */
  get lastSeq(): number {
    return this.newestSeq;
  }

  /** seq of the oldest event still held (lastSeq + 1 when empty). */
  get oldestSeq(): number {
    return this.newestSeq - this.count + 1;
  }

  get size(): number {
    return this.count;
  }

  /** Adds the next event; seq must follow on. */
  push(event: T): void {
    if (event.seq !== this.newestSeq + 1) {
      throw new ReinsError(
        'protocol_error',
        `Event seq ${event.seq} does not follow ${this.newestSeq}: a session's events must have no gaps.`,
      );
    }
    if (this.count === this.capacity) this.dropOldest();
    this.ring[(this.start + this.count) % this.capacity] = event;
    this.count++;
    this.chars += event.json?.length ?? 0;
    while (this.chars > this.maxChars && this.count > 1) this.dropOldest();
    this.newestSeq = event.seq;
  }

  private dropOldest(): void {
    this.chars -= this.ring[this.start]?.json?.length ?? 0;
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.count--;
  }

  /**
   * Every held event with seq > afterSeq, in order. Fails with invalid_input when events right after
   * `afterSeq` were already dropped (the reply names the oldest seq available) or when `afterSeq` is
   * past the newest event.
   */
  since(afterSeq: number): T[] {
    if (!Number.isInteger(afterSeq) || afterSeq < 0) {
      throw new ReinsError('invalid_input', `afterSeq must be a whole number >= 0, got ${afterSeq}.`);
    }
    if (afterSeq > this.newestSeq) {
      throw new ReinsError(
        'invalid_input',
        `afterSeq ${afterSeq} is past the newest event of this session (seq ${this.newestSeq}).`,
        { data: { afterSeq, lastSeq: this.newestSeq } },
      );
    }
    const oldest = this.oldestSeq;
    if (afterSeq + 1 < oldest) {
      throw new ReinsError(
        'invalid_input',
        `Events after seq ${afterSeq} are no longer buffered: the oldest seq available is ${oldest} (the daemon keeps the last ${this.capacity} events of a session, at most ${this.maxChars} characters of them).`,
        { data: { afterSeq, oldestSeq: oldest, lastSeq: this.newestSeq } },
      );
    }
    return this.slice(afterSeq, this.count);
  }

  /** Whether every entry after `afterSeq` (up to the newest) is held here. */
  covers(afterSeq: number): boolean {
    return afterSeq >= this.oldestSeq - 1 && afterSeq <= this.newestSeq;
  }

  /** Up to `limit` held entries with seq > afterSeq, oldest first (call when `covers(afterSeq)`). */
  slice(afterSeq: number, limit: number): T[] {
    const skip = Math.max(0, afterSeq + 1 - this.oldestSeq);
    const end = Math.min(this.count, skip + limit);
    const out: T[] = [];
    for (let i = skip; i < end; i++) out.push(this.ring[(this.start + i) % this.capacity] as T);
    return out;
  }

  /** Forgets every entry (a dormant session frees its memory) and continues after `lastSeq`. */
  reset(lastSeq: number): void {
    this.ring = [];
    this.start = 0;
    this.count = 0;
    this.chars = 0;
    this.newestSeq = lastSeq;
  }
}
