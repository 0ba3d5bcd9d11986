// One daemon session's event log: it gives each event its seq, writes it to the store, and only
// once the store said it is durable hands it on (state first, then every subscribed connection),
// in seq order. Events appended while a write is in flight go out in the next write, so a busy
// session costs one store write per batch, not per event, and its connections get the batch as one
// run (a client that takes batches, in one frame). The newest events stay in memory for
// replay; older ones are read back from the store. Every event is serialized once, here.
//
// A store that cannot write (a full disk) makes the log "unavailable": what it refused is dropped
// (no client saw it), an `error` (store_unavailable) and the closing of the turn whose start is
// stored are published live but held in memory, and nothing else is taken until a write works
// again (ensureWritable, on the next send); then the held events are written first. So the log
// never holds a terminal without its start (docs/architecture/daemon.md, "A store that cannot write").
import { type EventPayload, ReinsError, type ReinsEvent } from '@reins/core';
import { CrashedTurn } from './daemon-events.js';
import { EventBuffer } from './event-buffer.js';
import { LiveEvent, type PublishedEvent } from './published-event.js';
import type { DaemonStore, StoredEventText } from './store/store.js';
import { storeUnavailableError } from './store/unavailable.js';

export type { PublishedEvent } from './published-event.js';

/**
 * Takes a run of events: consecutive events of one session, in seq order, that one store write made
 * durable (or one event). Every sink gets the same array, so a connection's frame for the run is made
 * once for all of them (socket-output.ts).
 */
export type EventSink = (run: readonly PublishedEvent[]) => void;

export interface SessionLogHooks {
  /** Sees each event once it is durable, before any subscriber does. */
  published(event: ReinsEvent): void;
  /**
   * The store refused a write: what it refused is dropped and nothing is taken until it writes
   * again (the owner stops the harness). `lastSeq` is then the newest stored event.
   */
  failed(error: unknown): void;
}

export class SessionLog {
  private assigned: number;
  private published: number;
  // The lists and the sink map below are made when first needed and dropped once empty, so the log of
  // a dormant session holds no object of its own (docs/architecture/daemon.md, "Memory of a dormant session").
  /** The newest events, in memory for replay; none while the session is dormant (made at its next event). */
  private tail: EventBuffer<PublishedEvent> | undefined;
  /** Appended, for the next write. */
  private pending: PublishedEvent[] | undefined;
  private writing = false;
  /** The store's refusal while it cannot write (undefined: it can). */
  private unavailable: unknown;
  /** Published live while the store could not write; written first once it can. */
  private held: PublishedEvent[] | undefined;
  private retrying: Promise<void> | undefined;
  /** The turn whose turn.started is stored and whose terminal is not. */
  private openTurn: CrashedTurn | undefined;
  private sinks: Map<object, EventSink> | undefined;
  private idleWaiters: Array<() => void> | undefined;

  constructor(
    readonly sessionId: string,
    private readonly harness: string,
    private readonly store: DaemonStore,
    private readonly tailSize: number,
    lastSeq: number,
    private readonly hooks: SessionLogHooks,
  ) {
    EventBuffer.checkCapacity(tailSize);
    this.assigned = lastSeq;
    this.published = lastSeq;
  }

  /** seq of the newest event clients can have (durable and handed on). */
  get lastSeq(): number {
    return this.published;
  }

  /** The seq the next appended event gets. */
  nextSeq(): number {
    return this.assigned + 1;
  }

  /** Appends an event whose seq is nextSeq(); it is published once the store has it. */
  append(event: ReinsEvent): void {
    if (this.unavailable !== undefined) return;
    if (event.seq !== this.assigned + 1) {
      throw new ReinsError(
        'protocol_error',
        `Event seq ${event.seq} does not follow ${this.assigned} in ${this.sessionId}.`,
      );
    }
    this.assigned = event.seq;
    this.pending ??= [];
    this.pending.push(new LiveEvent(event));
    if (!this.writing) void this.write();
  }

  private async write(): Promise<void> {
    this.writing = true;
    while (this.pending !== undefined && this.unavailable === undefined) {
      const batch = this.pending;
      this.pending = undefined;
      try {
        await this.store.appendEvents(
          this.sessionId,
          batch.map((entry) => entry.event),
          batch.map((entry) => entry.json),
        );
      } catch (error) {
        this.fail(error);
        break;
      }
      // The session's state sees the write's events first, then every connection the run at once.
      for (const entry of batch) this.publish(entry);
      this.deliver(batch);
    }
    this.writing = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = undefined;
    for (const wake of waiters ?? []) wake();
  }

  private publish(entry: PublishedEvent): void {
    this.published = entry.seq;
    this.remember(entry);
    this.stored(entry.event);
  }

  /** Keeps the event's text, not its object: the object (and the native frame in it) can go once delivered. */
  private remember(entry: PublishedEvent): void {
    if (!this.tail) {
      this.tail = new EventBuffer<PublishedEvent>(this.tailSize);
      this.tail.reset(entry.seq - 1);
    }
    this.tail.push(new StoredEvent(entry.seq, entry.json));
  }

  /** Bookkeeping of an event the store has. */
  private stored(event: ReinsEvent): void {
    if (event.type === 'turn.started' && event.turnId !== null) {
      this.openTurn = new CrashedTurn({ turnId: event.turnId, seq: event.seq });
    }
    this.openTurn?.observe(event);
    if (event.type === 'turn.completed' && event.turnId === this.openTurn?.open.turnId) this.openTurn = undefined;
    this.hooks.published(event);
  }

  private deliver(run: readonly PublishedEvent[]): void {
    // The map itself, not a copy per run: a sink that removes itself (or another) meanwhile is
    // skipped from then on, and one added meanwhile is a subscription still replaying, which
    // ignores live events (subscription.ts).
    if (this.sinks === undefined) return;
    for (const sink of this.sinks.values()) sink(run);
  }

  /** The store refused a write and has not taken one since. */
  get isUnavailable(): boolean {
    return this.unavailable !== undefined;
  }

  /** Throws store_unavailable while the store cannot write. */
  assertWritable(): void {
    if (this.unavailable !== undefined) throw storeUnavailableError(this.store.location, this.unavailable);
  }

  /**
   * The store refused `error`: the refused events are dropped (nobody saw them), and the error
   * and the closing of the stored open turn are published live and held for the store.
   */
  private fail(error: unknown): void {
    this.unavailable = error;
    this.pending = undefined;
    this.assigned = this.published;
    const turn = this.openTurn;
    this.hooks.failed(error);
    const info = storeUnavailableError(this.store.location, error).toInfo();
    const payloads: EventPayload[] = [{ type: 'error', ...info, fatal: true }, ...(turn ? turn.closing(info) : [])];
    for (const payload of payloads) this.hold(payload, turn?.open.turnId ?? null);
  }

  private hold(payload: EventPayload, turnId: string | null): void {
    const event = {
      ...payload,
      seq: ++this.assigned,
      harness: this.harness,
      sessionId: this.sessionId,
      turnId,
      at: Date.now(),
    } as ReinsEvent;
    const entry = new LiveEvent(event);
    this.held ??= [];
    this.held.push(entry);
    this.published = entry.seq;
    this.remember(entry);
    this.deliver([entry]);
  }

  /**
   * Resolves when the store takes writes (checked with a write that changes nothing, where the
   * store has one), after writing what was held while it could not; else rejects with
   * store_unavailable. Called before new work is given to the harness.
   */
  ensureWritable(): Promise<void> {
    this.retrying ??= this.retry().finally(() => {
      this.retrying = undefined;
    });
    return this.retrying;
  }

  private async retry(): Promise<void> {
    const held = this.held ?? [];
    try {
      if (held.length > 0) {
        await this.store.appendEvents(
          this.sessionId,
          held.map((entry) => entry.event),
          held.map((entry) => entry.json),
        );
      } else {
        await this.store.checkWritable?.();
      }
    } catch (error) {
      // Writes in flight settle first (stored and published, or failed): the error goes after them.
      if (held.length === 0) await this.idle();
      if (this.unavailable === undefined) this.fail(error);
      throw storeUnavailableError(this.store.location, error);
    }
    this.held = undefined;
    this.unavailable = undefined;
    for (const entry of held) this.stored(entry.event);
  }

  /** Resolves when every appended event was written (or the store failed). */
  idle(): Promise<void> {
    if (!this.writing && this.pending === undefined) return Promise.resolve();
    this.idleWaiters ??= [];
    const waiters = this.idleWaiters;
    return new Promise((resolve) => waiters.push(resolve));
  }

  /** From now on every published event goes to `sink` (one per owner). */
  addSink(owner: object, sink: EventSink): void {
    this.sinks ??= new Map();
    this.sinks.set(owner, sink);
  }

  removeSink(owner: object): void {
    this.sinks?.delete(owner);
    if (this.sinks?.size === 0) this.sinks = undefined;
  }

  clearSinks(): void {
    this.sinks = undefined;
  }

  /** Up to `limit` published events after `afterSeq`: from memory when held there, else from the store. */
  async read(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    if (afterSeq >= this.published) return [];
    const tail = this.tail;
    if (tail?.covers(afterSeq)) return tail.slice(afterSeq, limit);
    const upTo = Math.min(limit, (tail?.oldestSeq ?? this.published + 1) - 1 - afterSeq);
    if (this.store.readEventTexts) {
      const texts = await this.store.readEventTexts(this.sessionId, afterSeq, upTo);
      const until = Math.min(afterSeq + upTo, this.published);
      return this.readable(
        afterSeq,
        until,
        texts.filter((entry) => entry.seq <= until),
      );
    }
    const events = await this.store.readEvents(this.sessionId, afterSeq, upTo);
    return events
      .filter((event) => event.seq <= this.published)
      .map((event) => ({ seq: event.seq, event, json: JSON.stringify(event) }));
  }

  /**
   * Stored events as they are sent: a row that does not read (or is missing) becomes an `error`
   * at its seq naming the damaged run, so a client never gets a non-JSON frame nor a gap.
   */
  private readable(afterSeq: number, until: number, texts: StoredEventText[]): PublishedEvent[] {
    const entries: PublishedEvent[] = [];
    let expected = afterSeq + 1;
    const damaged: Array<{ seq: number; why: string }> = [];
    const flushDamaged = () => {
      const first = damaged[0];
      const last = damaged.at(-1);
      if (!first || !last) return;
      for (const { seq, why } of damaged) entries.push(this.damagedEvent(seq, first.seq, last.seq, why));
      damaged.length = 0;
    };
    for (const text of texts) {
      for (; expected < text.seq; expected++) damaged.push({ seq: expected, why: 'the row is missing' });
      expected = text.seq + 1;
      if (text.damaged !== undefined) {
        damaged.push({ seq: text.seq, why: text.damaged });
        continue;
      }
      flushDamaged();
      entries.push(new StoredEvent(text.seq, text.json));
    }
    for (; expected <= until; expected++) damaged.push({ seq: expected, why: 'the row is missing' });
    flushDamaged();
    return entries;
  }

  private damagedEvent(seq: number, from: number, to: number, why: string): PublishedEvent {
    const range = from === to ? `Event ${from}` : `Events ${from}-${to}`;
    const event = {
      type: 'error',
      code: 'store_unavailable',
      message: `${range} of this session could not be read from the store (${why}) and ${from === to ? 'was' : 'were'} skipped; the rest of the log reads. \`reins daemon --repair\` copies what reads into a new store.`,
      fatal: false,
      data: { damaged: { from, to } },
      seq,
      harness: this.harness,
      sessionId: this.sessionId,
      turnId: null,
      at: Date.now(),
    } as ReinsEvent;
    return { seq, event, json: JSON.stringify(event) };
  }

  /** Drops the in-memory tail (a dormant session keeps no buffer); replay then reads from the store. */
  forgetTail(): void {
    if (this.writing || this.pending !== undefined || this.held !== undefined) return;
    this.tail = undefined;
  }
}

/**
 * An event as the text it was stored as (read back from the store, or kept in the tail): a replay
 * sends the text, so the object is parsed only when someone reads it (a crash scan at start does).
 */
class StoredEvent implements PublishedEvent {
  private parsed: ReinsEvent | undefined;

  constructor(
    readonly seq: number,
    readonly json: string,
  ) {}

  get event(): ReinsEvent {
    this.parsed ??= JSON.parse(this.json) as ReinsEvent;
    return this.parsed;
  }
}
