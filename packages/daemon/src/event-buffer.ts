// The bounded replay buffer of one daemon session: the newest `capacity` events in seq order, so a
// client that reconnects gets exactly the events after the last one it has. When a client is further
// behind than the buffer reaches, it is told the oldest seq still held rather than given a gap.
import { ReinsError, type ReinsEvent } from '@reins/core';

export const DEFAULT_EVENT_BUFFER_SIZE = 10_000;

export class EventBuffer {
  private readonly ring: (ReinsEvent | undefined)[];
  /** Index in `ring` of the oldest event held. */
  private start = 0;
  private count = 0;
  private newestSeq = 0;

  constructor(readonly capacity = DEFAULT_EVENT_BUFFER_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new ReinsError('invalid_input', `The event buffer size must be a positive integer, got ${capacity}.`);
    }
    this.ring = new Array(capacity);
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

  /** Adds the next event; events arrive from one SessionEventStream, so seq must follow on. */
  push(event: ReinsEvent): void {
    if (event.seq !== this.newestSeq + 1) {
      throw new ReinsError(
        'protocol_error',
        `Event seq ${event.seq} does not follow ${this.newestSeq}: a session's events must have no gaps.`,
      );
    }
    if (this.count < this.capacity) {
      this.ring[(this.start + this.count) % this.capacity] = event;
      this.count++;
    } else {
      this.ring[this.start] = event;
      this.start = (this.start + 1) % this.capacity;
    }
    this.newestSeq = event.seq;
  }

  /**
   * Every held event with seq > afterSeq, in order. Fails with invalid_input when events right after
   * `afterSeq` were already dropped (the reply names the oldest seq available) or when `afterSeq` is
   * past the newest event.
   */
  since(afterSeq: number): ReinsEvent[] {
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
        `Events after seq ${afterSeq} are no longer buffered: the oldest seq available is ${oldest} (the daemon keeps the last ${this.capacity} events of a session).`,
        { data: { afterSeq, oldestSeq: oldest, lastSeq: this.newestSeq } },
      );
    }
    const skip = afterSeq + 1 - oldest;
    const out: ReinsEvent[] = [];
    for (let i = skip; i < this.count; i++) out.push(this.ring[(this.start + i) % this.capacity] as ReinsEvent);
    return out;
  }
}
