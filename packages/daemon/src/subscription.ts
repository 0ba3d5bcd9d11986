// One connection's subscription to one session: the events after `afterSeq`, then live ones, in
// seq order with no gap and no duplicate. Replay reads the log page by page (memory, else the
// store) and waits for the socket to take each page before reading the next, so a long history
// never piles up in the daemon. While it replays, live events are not queued: the next page reads
// them back from the log. The switch to live happens in the same synchronous step that finds the
// log read to its end, so nothing can slip between the two. A gap (never expected) heals the same
// way: back to replay from the last seq sent. An outlet that takes batches (a client granted
// `eventBatches`) gets each replay page, and each live run (the events one store write made durable),
// as session/events frames instead of one frame per event; live events leave in the tick they were
// published either way. A page is sent in parts bounded by bytes, each after the socket took the
// last, and a live event or part of a run that finds the socket congested (big events in a burst)
// sends the subscription back to replay, which goes on at the socket's pace: the log holds what
// waits, so a client that reads is never cut for size.
import type { Logger } from './logger.js';
import type { SessionHandle } from './session-directory.js';
import type { PublishedEvent } from './session-log.js';

/** What a subscription needs of its connection. */
export interface EventOutlet {
  /** Sends one event; false when the connection is gone (or was just dropped as too slow). */
  sendEvent(sessionId: string, published: PublishedEvent): boolean;
  /** Whether the client takes session/events (then replay pages go through sendEvents). */
  readonly eventBatches: boolean;
  /** Sends consecutive events as session/events frames; false as for sendEvent. */
  sendEvents(sessionId: string, events: readonly PublishedEvent[]): boolean;
  /** Resolves once the socket has taken (nearly) everything sent so far. */
  drained(): Promise<void>;
  /** True when the socket holds enough unsent that a replay should wait for drained() first. */
  readonly backlogged?: boolean;
  /** True when the socket holds so much unsent that live events should wait in the log (replay). */
  readonly congested?: boolean;
}

const PAGE = 256;
/** A replay page for a batching client: one store read, one or two frames. */
const BATCH_PAGE = 512;
/** Event JSON (characters) a replay hands the socket before it checks whether to wait for it. */
const REPLAY_CHUNK_CHARS = 2 * 1024 * 1024;
/** Event JSON a replay page should hold at most: after a page of big events the next reads fewer. */
const PAGE_CHARS = 8 * 1024 * 1024;

export class Subscription {
  private sent: number;
  private replaying = true;
  private ended = false;
  /** Events the next replay page reads: the full page, or fewer after big events (PAGE_CHARS). */
  private pageLimit: number | undefined;

  constructor(
    readonly hosted: SessionHandle,
    afterSeq: number,
    private readonly outlet: EventOutlet,
    private readonly log: Logger,
  ) {
    this.sent = afterSeq;
    hosted.addSink(this, (run) => this.offer(run));
  }

  /** Starts the replay (call right after the subscribe answer went out). */
  start(): void {
    void this.replay();
  }

  stop(): void {
    this.ended = true;
    this.hosted.removeSink(this);
  }

  /** A live run: as one batch (or a few) to a batching outlet, else event by event. */
  private offer(run: readonly PublishedEvent[]): void {
    if (this.outlet.eventBatches && run.length > 1) {
      for (const chunk of byteChunks(run)) {
        if (!this.live()) return;
        if (this.deliverPage(chunk) === 'gap') this.backToReplay();
      }
      return;
    }
    for (const published of run) {
      if (!this.live()) return;
      this.deliver(published);
    }
  }

  /** Whether live events go out now: not replaying and not ended, and the socket not congested (else back to replay). */
  private live(): boolean {
    if (this.ended || this.replaying) return false;
    if (!this.outlet.congested) return true;
    this.backToReplay();
    return false;
  }

  private backToReplay(): void {
    if (this.replaying || this.ended) return;
    this.replaying = true;
    void this.replay();
  }

  private deliver(published: PublishedEvent): void {
    if (published.seq <= this.sent) return;
    if (published.seq !== this.sent + 1) {
      this.log.warn('subscription gap: replaying from the log', {
        sessionId: this.hosted.id,
        sent: this.sent,
        got: published.seq,
      });
      this.backToReplay();
      return;
    }
    if (!this.outlet.sendEvent(this.hosted.id, published)) {
      this.stop();
      return;
    }
    this.sent = published.seq;
  }

  /**
   * A page or live run to a batching outlet: the run that follows on from the last seq sent, in as
   * few frames as the limits allow (a lone event as session/event). Says `gap` when something after
   * it does not follow on: that is read again from the log.
   */
  private deliverPage(page: readonly PublishedEvent[]): 'sent' | 'gap' | 'stopped' {
    let start = 0;
    while (start < page.length && (page[start] as PublishedEvent).seq <= this.sent) start++;
    let end = start;
    while (end < page.length && (page[end] as PublishedEvent).seq === this.sent + 1 + (end - start)) end++;
    if (end < page.length) {
      this.log.warn('subscription gap: replaying from the log', {
        sessionId: this.hosted.id,
        sent: this.sent + (end - start),
        got: (page[end] as PublishedEvent).seq,
      });
    }
    const gap = end < page.length ? 'gap' : 'sent';
    if (end === start) return gap;
    // The page itself when all of it follows on: a live run is the same array for every connection,
    // which lets the outlet make its frames once (socket-output.ts).
    const run = start === 0 && end === page.length ? page : page.slice(start, end);
    const delivered =
      run.length === 1
        ? this.outlet.sendEvent(this.hosted.id, run[0] as PublishedEvent)
        : this.outlet.sendEvents(this.hosted.id, run);
    if (!delivered) {
      this.stop();
      return 'stopped';
    }
    this.sent = (run[run.length - 1] as PublishedEvent).seq;
    return gap;
  }

  private async replay(): Promise<void> {
    let stalls = 0;
    try {
      while (!this.ended) {
        if (this.outlet.backlogged) await this.outlet.drained();
        if (this.ended) return;
        const before = this.sent;
        const fullPage = this.outlet.eventBatches ? BATCH_PAGE : PAGE;
        const page = await this.hosted.readEvents(this.sent, this.pageLimit ?? fullPage);
        this.pageLimit = nextPageLimit(page, fullPage);
        if (this.ended) return;
        for (const chunk of byteChunks(page)) {
          if (this.ended) return;
          if (this.outlet.eventBatches) this.deliverPage(chunk);
          else for (const published of chunk) if (!this.ended) this.deliver(published);
          if (this.outlet.backlogged) await this.outlet.drained();
        }
        if (this.ended) return;
        if (this.hosted.isDeleted) {
          this.stop();
          return;
        }
        // The check and the switch to live are one synchronous step: nothing is published in between.
        if (this.hosted.lastSeq <= this.sent) {
          this.replaying = false;
          return;
        }
        if (this.sent === before) {
          // The log said there is more but gave nothing after `sent` (an event published while the
          // read ran comes in the next one); more than a few of these means the log lost events.
          if (++stalls > 3)
            throw new Error(`the log has no events after seq ${this.sent} up to ${this.hosted.lastSeq}`);
          continue;
        }
        stalls = 0;
        await this.outlet.drained();
      }
    } catch (error) {
      this.log.error('replay failed', { sessionId: this.hosted.id, error: (error as Error).message });
      this.stop();
    }
  }
}

/**
 * `page` cut into runs of at most REPLAY_CHUNK_CHARS of JSON (a bigger event alone in its run); the
 * page itself when it fits in one.
 */
function byteChunks(page: readonly PublishedEvent[]): Array<readonly PublishedEvent[]> {
  const chunks: Array<readonly PublishedEvent[]> = [];
  let chunk: PublishedEvent[] = [];
  let chars = 0;
  for (const published of page) {
    if (chunk.length > 0 && chars + published.json.length > REPLAY_CHUNK_CHARS) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(published);
    chars += published.json.length;
  }
  if (chunks.length === 0) return page.length === 0 ? [] : [page];
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * How many events the page after `page` reads: as many as held PAGE_CHARS of JSON in this one
 * (at least 1, at most `fullPage`), so a run of big events is read a few at a time.
 */
function nextPageLimit(page: readonly PublishedEvent[], fullPage: number): number {
  let chars = 0;
  for (const published of page) chars += published.json.length;
  if (chars <= PAGE_CHARS || page.length === 0) return fullPage;
  return Math.max(1, Math.min(fullPage, Math.floor((page.length * PAGE_CHARS) / chars)));
}
