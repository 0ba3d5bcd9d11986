// The native frames the raw-frames panel shows. The console takes events without them (about half
// of every event's bytes: @reins/client's nativeFrames: false), so the panel asks the daemon for
// them (session/nativeFrames) while it is open: the newest page first, then older pages back to the
// first event, then new events as they come. Pages are asked one at a time; a failed one stops the
// loading and says why (the panel still shows every event, and any frame an event carries itself).
import { NATIVE_FRAMES_PAGE } from '@reins/client';
import type { NativeFrame } from '@reins/core';

export type FetchNativeFrames = (
  afterSeq: number,
  limit: number,
) => Promise<Array<{ seq: number; native: NativeFrame }>>;

export class NativeFrameLoader {
  readonly frames = new Map<number, NativeFrame>();
  /** Why loading stopped, if it did. */
  failure: string | undefined;
  /** Newest seq asked for. */
  private top = 0;
  /** afterSeq of the oldest page asked for (0: everything older was asked); undefined before the first. */
  private bottom: number | undefined;
  private wanted = 0;
  /** The events whose frames arrived: seq in (fetchedAfter, fetchedUpTo]; pages extend it at either end. */
  private fetchedAfter = Number.POSITIVE_INFINITY;
  private fetchedUpTo = 0;
  private running = false;
  private stopped = false;

  constructor(
    private readonly fetch: FetchNativeFrames,
    /** Called after each page arrives (and on a failure). */
    private readonly changed: () => void,
    private readonly page: number = NATIVE_FRAMES_PAGE.max,
  ) {}

  /** The session's events now reach `lastSeq`: the frames up to it are fetched. */
  want(lastSeq: number): void {
    if (lastSeq <= this.wanted) return;
    this.wanted = lastSeq;
    void this.run();
  }

  stop(): void {
    this.stopped = true;
  }

  /** Whether the frame of event `seq` arrived (or the daemon said the event has none). */
  fetched(seq: number): boolean {
    return seq > this.fetchedAfter && seq <= this.fetchedUpTo;
  }

  /** The next page to ask for: newer events first, then older ones. */
  private next(): { afterSeq: number; limit: number } | undefined {
    if (this.wanted > this.top) {
      const afterSeq = this.bottom === undefined ? Math.max(0, this.wanted - this.page) : this.top;
      const limit = Math.min(this.page, this.wanted - afterSeq);
      this.bottom ??= afterSeq;
      this.top = afterSeq + limit;
      return { afterSeq, limit };
    }
    if (this.bottom !== undefined && this.bottom > 0) {
      const afterSeq = Math.max(0, this.bottom - this.page);
      const limit = this.bottom - afterSeq;
      this.bottom = afterSeq;
      return { afterSeq, limit };
    }
    return undefined;
  }

  private async run(): Promise<void> {
    if (this.running || this.failure !== undefined) return;
    this.running = true;
    try {
      for (let next = this.next(); next !== undefined && !this.stopped; next = this.next()) {
        const page = await this.fetch(next.afterSeq, next.limit);
        if (this.stopped) return;
        for (const { seq, native } of page) this.frames.set(seq, native);
        this.fetchedAfter = Math.min(this.fetchedAfter, next.afterSeq);
        this.fetchedUpTo = Math.max(this.fetchedUpTo, next.afterSeq + next.limit);
        this.changed();
      }
    } catch (error) {
      this.failure = error instanceof Error ? error.message : String(error);
      if (!this.stopped) this.changed();
    } finally {
      this.running = false;
    }
  }
}
