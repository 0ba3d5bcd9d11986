// A session's event log on the events stream: append, the newest event, a page after a seq, and
// purge. Each event is one message on `reins.events.<sessionId>` with `<sessionId>:<seq>` as its
// message id (JetStream drops a republished copy within the duplicate window) and its seq in a
// header. A writer sends a session's events one after the other, each expecting the stream
// sequence of the one before on that subject: the log can never fork or reorder, even after the
// duplicate window, and a writer whose session was taken over (another member wrote since) is
// refused instead of doubling a seq (docs/architecture/cluster.md, "Guarantees").
import { DeliverPolicy, type StoredMsg } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import { ReinsError } from '@reins/core';
import type { Logger } from '../logger.js';
import { EVENTS_STREAM, eventMessageId, eventSubject, SEQ_HEADER, WRITER_HEADER } from './layout.js';
import { type Located, locateAfter } from './locate.js';
import { isWrongLastSequence, type NatsCluster, retrying } from './nats.js';

/** One stored event: its session seq, where it is in the stream, its JSON (as written), its writer. */
export interface StoredEvent {
  seq: number;
  streamSeq: number;
  json: string;
  writer: string;
}

export interface EventEntry {
  seq: number;
  json: string;
}

/** Pages this small are read with direct gets; bigger ones through a short-lived ordered consumer. */
const DIRECT_READ_MAX = 4;
const PUBLISH_TIMEOUT_MS = 2_000;
const FETCH_EXPIRES_MS = 5_000;

export function storedEvent(message: StoredMsg): StoredEvent | undefined {
  const seq = Number(message.header?.get(SEQ_HEADER));
  if (!Number.isInteger(seq) || seq < 1) return undefined;
  return { seq, streamSeq: message.seq, json: message.string(), writer: message.header.get(WRITER_HEADER) };
}

/** The log moved on without this writer: another member took the session over. */
export function fencedError(sessionId: string, seq: number): ReinsError {
  return new ReinsError(
    'protocol_error',
    `Session ${sessionId} was taken over by another cluster member: this worker may not write its event ${seq}.`,
    { data: { sessionId, seq, reason: 'fenced' } },
  );
}

export function isFenced(error: unknown): boolean {
  return ReinsError.isInstance(error) && (error.data as { reason?: unknown } | undefined)?.reason === 'fenced';
}

export class EventStream {
  constructor(
    private readonly nats: NatsCluster,
    /** This writer's identity (member id and epoch), put on every event it writes. */
    private readonly writer: () => string,
    private readonly log: Logger,
    /** True once this member is shutting down: retries stop. */
    private readonly stopped: () => boolean,
  ) {}

  /** The newest event of a session (undefined: it has none). */
  async tail(sessionId: string): Promise<StoredEvent | undefined> {
    const message = await retrying(
      () => this.nats.jsm.direct.getMessage(EVENTS_STREAM, { last_by_subj: eventSubject(sessionId) }),
      { stopped: this.stopped, log: this.log, what: 'read the newest event' },
    );
    return message ? storedEvent(message) : undefined;
  }

  /**
   * Appends `entries` (seqs following the session's newest) after stream sequence `after` (0: the
   * session has no event yet), one by one; resolves with the stream sequence of the last once
   * every one is stored. A duplicate ack is checked to be our own copy.
   */
  async append(
    sessionId: string,
    entries: readonly EventEntry[],
    after: number,
    stopped: () => boolean = this.stopped,
  ): Promise<number> {
    let last = after;
    for (const entry of entries) last = await this.appendOne(sessionId, entry, last, stopped);
    return last;
  }

  private async appendOne(sessionId: string, entry: EventEntry, after: number, stopped: () => boolean) {
    const writer = this.writer();
    const meta = headers();
    meta.set(SEQ_HEADER, String(entry.seq));
    meta.set(WRITER_HEADER, writer);
    try {
      const ack = await retrying(
        () =>
          this.nats.js.publish(eventSubject(sessionId), entry.json, {
            msgID: eventMessageId(sessionId, entry.seq),
            headers: meta,
            expect: { lastSubjectSequence: after },
            timeout: PUBLISH_TIMEOUT_MS,
          }),
        { stopped, log: this.log, what: `append event ${entry.seq} of ${sessionId}` },
      );
      // Dropped as a copy: of our own earlier attempt (its ack was lost), or of another writer's?
      if (ack.duplicate && (await this.writerAt(ack.seq)) !== writer) throw fencedError(sessionId, entry.seq);
      return ack.seq;
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      // Past the duplicate window our first attempt may be in already: then the newest is ours.
      const newest = await this.tail(sessionId);
      if (newest && newest.seq === entry.seq && newest.writer === writer) return newest.streamSeq;
      throw fencedError(sessionId, entry.seq);
    }
  }

  private async writerAt(streamSeq: number): Promise<string | undefined> {
    const message = await retrying(() => this.nats.jsm.direct.getMessage(EVENTS_STREAM, { seq: streamSeq }), {
      stopped: this.stopped,
      log: this.log,
      what: 'read a stored event',
    });
    return message?.header?.get(WRITER_HEADER);
  }

  /**
   * Up to `limit` events with seq > afterSeq, oldest first. `start`, when the caller knows it, is
   * the stream sequence of the first of them (else it is found by bisection, locate.ts).
   */
  async read(sessionId: string, afterSeq: number, limit: number, start?: number): Promise<StoredEvent[]> {
    const newest = await this.tail(sessionId);
    if (!newest || newest.seq <= afterSeq || limit <= 0) return [];
    const count = Math.min(limit, newest.seq - afterSeq);
    const from = start ?? (await this.locate(sessionId, afterSeq, newest.streamSeq));
    if (from === undefined) return [];
    const page =
      count <= DIRECT_READ_MAX
        ? await this.readDirect(sessionId, from, count)
        : await this.fetch(sessionId, from, count);
    // The first may be before afterSeq+1 when `start` was a hint from further back.
    return page.filter((event) => event.seq > afterSeq).slice(0, count);
  }

  /** Stream sequence of the first event with seq > afterSeq (bisection over [1, high]). */
  locate(sessionId: string, afterSeq: number, high: number): Promise<number | undefined> {
    return locateAfter(afterSeq, 1, high, (from) => this.nextOnSubject(sessionId, from));
  }

  private async nextOnSubject(sessionId: string, from: number): Promise<Located | undefined> {
    const message = await retrying(
      () => this.nats.jsm.direct.getMessage(EVENTS_STREAM, { next_by_subj: eventSubject(sessionId), seq: from }),
      { stopped: this.stopped, log: this.log, what: 'locate an event' },
    );
    const event = message ? storedEvent(message) : undefined;
    return event ? { streamSeq: event.streamSeq, seq: event.seq } : undefined;
  }

  private async readDirect(sessionId: string, from: number, count: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let next = from;
    while (out.length < count) {
      const message = await retrying(
        () => this.nats.jsm.direct.getMessage(EVENTS_STREAM, { next_by_subj: eventSubject(sessionId), seq: next }),
        { stopped: this.stopped, log: this.log, what: 'read events' },
      );
      const event = message ? storedEvent(message) : undefined;
      if (!event) break;
      out.push(event);
      next = event.streamSeq + 1;
    }
    return out;
  }

  private fetch(sessionId: string, from: number, count: number): Promise<StoredEvent[]> {
    return retrying(
      async () => {
        const consumer = await this.nats.js.consumers.get(EVENTS_STREAM, {
          filter_subjects: eventSubject(sessionId),
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: from,
          inactive_threshold: 5_000_000_000,
        });
        const out: StoredEvent[] = [];
        const messages = await consumer.fetch({ max_messages: count, expires: FETCH_EXPIRES_MS });
        for await (const message of messages) {
          const seq = Number(message.headers?.get(SEQ_HEADER));
          if (Number.isInteger(seq) && seq > 0) {
            out.push({
              seq,
              streamSeq: message.seq,
              json: message.string(),
              writer: message.headers?.get(WRITER_HEADER) ?? '',
            });
          }
          if (out.length >= count || message.info.pending === 0) break;
        }
        return out;
      },
      { stopped: this.stopped, log: this.log, what: 'read events' },
    );
  }

  /** Removes every event of a session. */
  async purge(sessionId: string): Promise<void> {
    await retrying(() => this.nats.jsm.streams.purge(EVENTS_STREAM, { filter: eventSubject(sessionId) }), {
      stopped: this.stopped,
      log: this.log,
      what: 'purge a session',
    });
  }
}
