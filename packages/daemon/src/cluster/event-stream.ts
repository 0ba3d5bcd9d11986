// A session's event log on the events stream: append, the newest event, a page after a seq, and
// purge. Events go on `reins.events.<sessionId>` in messages (codec.ts) whose id is
// `<sessionId>:<seq of the first>` (JetStream drops a republished copy within the duplicate
// window). A writer sends a session's messages one after the other, each expecting the stream
// sequence of the one before on that subject: the log can never fork or reorder, even after the
// duplicate window, and a writer whose session was taken over (another member wrote since) is
// refused instead of doubling a seq (docs/architecture/cluster.md, "Guarantees").
import { DeliverPolicy, type JsMsg, type StoredMsg } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import { ReinsError } from '@reins/core';
import type { Logger } from '../logger.js';
import {
  COUNT_HEADER,
  type EventEntry,
  highestSeq,
  PART_HEADER,
  PartAssembler,
  pack,
  SEQ_HEADER,
  type Unpacked,
  unpack,
} from './codec.js';
import { EVENTS_STREAM, eventSubject, WRITER_HEADER } from './layout.js';
import { type Located, locateAfter } from './locate.js';
import { isWrongLastSequence, type NatsCluster, retrying } from './nats.js';

export type { EventEntry } from './codec.js';

/** One stored event: its session seq, the stream sequence of its message, its JSON, its writer. */
export interface StoredEvent {
  seq: number;
  streamSeq: number;
  json: string;
  writer: string;
}

/** When a stored event happened (its `at`), or undefined when its JSON does not say. */
export function eventAtOf(json: string): number | undefined {
  try {
    const at = (JSON.parse(json) as { at?: unknown }).at;
    return typeof at === 'number' ? at : undefined;
  } catch {
    return undefined;
  }
}

/** The newest message of a session: the highest seq it completes, where it is, who wrote it. */
export interface Newest {
  seq: number;
  streamSeq: number;
  writer: string;
  /** The newest event's JSON, when that message holds it whole. */
  json?: string;
}

const PUBLISH_TIMEOUT_MS = 2_000;
const FETCH_EXPIRES_MS = 5_000;
/** Room left in a message for its headers. */
const HEADER_ROOM = 1_024;
/** Pages this small are read with direct gets; bigger ones through a short-lived ordered consumer. */
const DIRECT_READ_MAX = 4;

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

export interface Message {
  streamSeq: number;
  unpacked: Unpacked;
  writer: string;
}

function fromStored(message: StoredMsg): Message | undefined {
  const unpacked = unpack(message.header, message.data);
  return unpacked ? { streamSeq: message.seq, unpacked, writer: message.header?.get(WRITER_HEADER) ?? '' } : undefined;
}

/** A message as a consumer (the gateway's feed) delivers it. */
export function fromJs(message: JsMsg): Message | undefined {
  const unpacked = unpack(message.headers, message.data);
  return unpacked ? { streamSeq: message.seq, unpacked, writer: message.headers?.get(WRITER_HEADER) ?? '' } : undefined;
}

/** Whole events of consecutive messages, parts put back together. */
export function eventsOf(messages: Iterable<Message>, assembler = new PartAssembler()): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const message of messages) {
    for (const event of assembler.take(message.unpacked)) {
      out.push({ ...event, streamSeq: message.streamSeq, writer: message.writer });
    }
  }
  return out;
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

  private get maxBytes(): number {
    return Math.max(4_096, (this.nats.nc.info?.max_payload ?? 1_048_576) - HEADER_ROOM);
  }

  /** The newest event of a session (undefined: it has none). */
  async tail(sessionId: string): Promise<Newest | undefined> {
    const message = await this.direct({ last_by_subj: eventSubject(sessionId) }, 'read the newest event');
    if (!message) return undefined;
    const { unpacked } = message;
    if (unpacked.kind === 'events') {
      const last = unpacked.events.at(-1) as EventEntry;
      return { seq: last.seq, streamSeq: message.streamSeq, writer: message.writer, json: last.json };
    }
    // A part: the event is whole only with its last part; before that the newest whole one is the seq before.
    const seq = unpacked.index === unpacked.of ? unpacked.seq : unpacked.seq - 1;
    return { seq, streamSeq: message.streamSeq, writer: message.writer };
  }

  /**
   * Appends `entries` (seqs following the session's newest) after stream sequence `after` (0: the
   * session has no message yet), one message after the other; resolves with the stream sequence of
   * the last once every one is stored. A duplicate ack is checked to be our own copy.
   */
  async append(
    sessionId: string,
    entries: readonly EventEntry[],
    after: number,
    stopped: () => boolean = this.stopped,
  ): Promise<number> {
    const writer = this.writer();
    let last = after;
    for (const message of pack(sessionId, entries, this.maxBytes, writer)) {
      last = await this.publish(sessionId, message, last, writer, stopped);
    }
    return last;
  }

  private async publish(
    sessionId: string,
    message: ReturnType<typeof pack>[number],
    after: number,
    writer: string,
    stopped: () => boolean,
  ): Promise<number> {
    const meta = headers();
    meta.set(SEQ_HEADER, String(message.seq));
    if (message.count > 1) meta.set(COUNT_HEADER, String(message.count));
    if (message.part) meta.set(PART_HEADER, `${message.part.index}/${message.part.of}`);
    meta.set(WRITER_HEADER, writer);
    try {
      const ack = await retrying(
        () =>
          this.nats.js.publish(eventSubject(sessionId), message.data, {
            msgID: message.msgId,
            headers: meta,
            expect: { lastSubjectSequence: after },
            timeout: PUBLISH_TIMEOUT_MS,
          }),
        { stopped, log: this.log, what: `append event ${message.seq} of ${sessionId}` },
      );
      // Dropped as a copy: of our own earlier attempt (its ack was lost), or of another writer's?
      if (ack.duplicate) {
        const stored = await this.direct({ seq: ack.seq }, 'read a stored event');
        if (stored?.writer !== writer) throw fencedError(sessionId, message.seq);
      }
      return ack.seq;
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      // Past the duplicate window our first attempt may be in already: then the newest is ours.
      const newest = await this.direct({ last_by_subj: eventSubject(sessionId) }, 'read the newest event');
      if (newest && newest.writer === writer && sameMessage(newest.unpacked, message)) return newest.streamSeq;
      throw fencedError(sessionId, message.seq);
    }
  }

  /**
   * Up to `limit` events with seq > afterSeq, oldest first. `start`, when the caller knows it, is
   * the stream sequence of a message at or before the first of them (else it is found by
   * bisection, locate.ts).
   */
  async read(sessionId: string, afterSeq: number, limit: number, start?: number): Promise<StoredEvent[]> {
    const newest = await this.tail(sessionId);
    if (!newest || newest.seq <= afterSeq || limit <= 0) return [];
    const count = Math.min(limit, newest.seq - afterSeq);
    let from = start ?? (await this.locate(sessionId, afterSeq, newest.streamSeq));
    const out: StoredEvent[] = [];
    const assembler = new PartAssembler();
    while (from !== undefined && from <= newest.streamSeq && out.length < count) {
      const messages =
        count - out.length <= DIRECT_READ_MAX
          ? await this.readDirect(sessionId, from, count - out.length)
          : await this.fetch(sessionId, from, count - out.length);
      if (messages.length === 0) break;
      for (const event of eventsOf(messages, assembler))
        if (event.seq > afterSeq && out.length < count) out.push(event);
      from = (messages.at(-1) as Message).streamSeq + 1;
    }
    return out;
  }

  /** Stream sequence of the first message with a seq > afterSeq (bisection over [1, high]). */
  locate(sessionId: string, afterSeq: number, high: number): Promise<number | undefined> {
    return locateAfter(afterSeq, 1, high, async (from): Promise<Located | undefined> => {
      const message = await this.direct({ next_by_subj: eventSubject(sessionId), seq: from }, 'locate an event');
      return message ? { streamSeq: message.streamSeq, seq: highestSeq(message.unpacked) } : undefined;
    });
  }

  private async direct(
    query: Parameters<NatsCluster['jsm']['direct']['getMessage']>[1],
    what: string,
  ): Promise<Message | undefined> {
    const message = await retrying(() => this.nats.jsm.direct.getMessage(EVENTS_STREAM, query), {
      stopped: this.stopped,
      log: this.log,
      what,
    });
    return message ? fromStored(message) : undefined;
  }

  private async readDirect(sessionId: string, from: number, count: number): Promise<Message[]> {
    const out: Message[] = [];
    let next = from;
    while (out.length < count) {
      const message = await this.direct({ next_by_subj: eventSubject(sessionId), seq: next }, 'read events');
      if (!message) break;
      out.push(message);
      next = message.streamSeq + 1;
    }
    return out;
  }

  private fetch(sessionId: string, from: number, count: number): Promise<Message[]> {
    return retrying(
      async () => {
        const consumer = await this.nats.js.consumers.get(EVENTS_STREAM, {
          filter_subjects: eventSubject(sessionId),
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: from,
          inactive_threshold: 5_000_000_000,
        });
        const out: Message[] = [];
        const messages = await consumer.fetch({ max_messages: count, expires: FETCH_EXPIRES_MS });
        for await (const message of messages) {
          const read = fromJs(message);
          if (read) out.push(read);
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

function sameMessage(stored: Unpacked, sent: ReturnType<typeof pack>[number]): boolean {
  if (stored.kind === 'part') return sent.part?.index === stored.index && sent.seq === stored.seq;
  return !sent.part && stored.events[0]?.seq === sent.seq && stored.events.length === sent.count;
}
