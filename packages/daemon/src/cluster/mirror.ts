// A gateway's view of one session held by a worker somewhere: its record (from the sessions
// bucket's watch), the seq of the newest event it has handed on, a bounded tail of recent events
// in memory, and the subscriptions of this gateway's clients. Events come in from the gateway's
// one feed of the events stream (event-feed.ts) and are handed on strictly in seq order: a copy
// is dropped, and an event that arrives before the ones it follows is held while the missing ones
// are read from the stream. What one offer (a feed message: one write of the holder's) or one page
// read back hands on reaches the subscriptions as one run, as a daemon's own session log's store
// write does (a batching client gets it in one frame). Replay reads the tail, else the stream (event-stream.ts). Client
// requests go to the gateway (`MirrorHost`), which routes them to the holder. It is the daemon's
// SessionHandle, so the daemon's connections and subscriptions serve it unchanged.

import {
  type Effort,
  type HarnessId,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import type { HostedSessionStatus, SessionChange, SessionListing, V1SessionListing } from '@reins/protocol';
import { v1Status } from '@reins/protocol';
import { EventBuffer } from '../event-buffer.js';
import type { Logger } from '../logger.js';
import type { SessionHandle } from '../session-directory.js';
import type { EventSink, PublishedEvent } from '../session-log.js';
import { eventAtOf, type StoredEvent } from './event-stream.js';
import type { ClusterSessionRecord } from './records.js';

/** What a mirror needs of its gateway. */
export interface MirrorHost {
  /** A client request on this session, routed to its holder (or handled here when it is lost). */
  route(mirror: SessionMirror, method: string, params: Record<string, unknown>): Promise<unknown>;
  /** Stored events after `afterSeq` (at most `limit`), `start` being a known stream sequence to begin at. */
  readStored(sessionId: string, afterSeq: number, limit: number, start?: number): Promise<StoredEvent[]>;
  /** The session's newest stored seq (and that event's JSON when it is at hand). */
  newestStored(sessionId: string): Promise<{ seq: number; json?: string } | undefined>;
  /** sessions/changed to this gateway's clients. */
  changed(sessionId: string, change: SessionChange): void;
  log: Logger;
}

interface Entry extends PublishedEvent {
  streamSeq: number;
}

/** Events held because they came before the ones they follow; more than this and they are read back instead. */
const MAX_AHEAD = 4_096;
const CATCH_UP_PAGE = 256;

export class SessionMirror implements SessionHandle {
  readonly id: string;
  private current: ClusterSessionRecord;
  private revision: number;
  private published = 0;
  private newestAt = 0;
  private readonly tail: EventBuffer<Entry>;
  private readonly sinks = new Map<object, EventSink>();
  private readonly ahead = new Map<number, StoredEvent>();
  private catchingUp: Promise<void> = Promise.resolve();
  /** Where in the stream the last page read from it ended (a replay reads on from there). */
  private lastRead: { seq: number; streamSeq: number } | undefined;
  /** The newest session.status event handed on. */
  private statusEvent: { status: HostedSessionStatus; seq: number } | undefined;
  private initialized = false;
  private deleted = false;
  /** Resolves once the newest stored seq is known. */
  readonly ready: Promise<void>;

  constructor(
    private readonly host: MirrorHost,
    record: ClusterSessionRecord,
    revision: number,
    tailSize: number,
  ) {
    this.id = record.session.sessionId;
    this.current = record;
    this.revision = revision;
    this.tail = new EventBuffer<Entry>(tailSize);
    this.ready = this.init();
  }

  private async init(): Promise<void> {
    try {
      const newest = await this.host.newestStored(this.id);
      this.published = Math.max(this.published, newest?.seq ?? 0);
      if (newest?.json) this.newestAt = eventAtOf(newest.json) ?? 0;
      this.tail.reset(this.published);
    } finally {
      this.initialized = true;
      this.releaseAhead();
      const highest = Math.max(0, ...this.ahead.keys());
      if (highest > this.published) void this.catchUp(highest - 1);
    }
  }

  // ---- record -------------------------------------------------------------------------------------

  get record(): ClusterSessionRecord {
    return this.current;
  }

  /** A newer revision of the record; says what clients should hear (undefined: nothing they see). */
  updateRecord(record: ClusterSessionRecord, revision: number): SessionChange | undefined {
    if (revision <= this.revision) return undefined;
    const before = this.current;
    const statusBefore = this.status;
    this.current = record;
    this.revision = revision;
    if (record.session.state === 'closed' && before.session.state !== 'closed') return 'closed';
    if (this.status !== statusBefore) return 'updated';
    const visible = (r: ClusterSessionRecord) =>
      JSON.stringify([r.worker, r.session.nativeSessionId, r.session.title, r.session.model, r.session.effort]);
    return visible(before) === visible(record) ? undefined : 'updated';
  }

  get recordRevision(): number {
    return this.revision;
  }

  markDeleted(): void {
    this.deleted = true;
    this.sinks.clear();
    this.ahead.clear();
    this.tail.reset(this.published);
  }

  // ---- what the daemon reads ----------------------------------------------------------------------

  get harness(): HarnessId {
    return this.current.session.harness;
  }

  /**
   * The record's state, unless the log has a newer word: the holder writes its state to the
   * record apart from the events, so a session.status event handed on here can be ahead of it.
   */
  get status(): HostedSessionStatus {
    const record = this.current;
    if (record.session.state === 'closed') return 'closed';
    const said = this.statusEvent;
    if (said && record.status !== 'lost' && said.seq > (record.statusSeq ?? 0)) return said.status;
    return record.status;
  }

  get lastSeq(): number {
    return this.published;
  }

  get nativeSessionId(): string | undefined {
    return this.current.session.nativeSessionId;
  }

  get updatedAt(): number {
    return Math.max(this.current.session.updatedAt, this.newestAt);
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  listing(): SessionListing {
    const r = this.current.session;
    return {
      sessionId: this.id,
      harness: r.harness,
      ...(r.nativeSessionId !== undefined ? { nativeSessionId: r.nativeSessionId } : {}),
      cwd: r.cwd,
      ...(r.title !== undefined ? { title: r.title } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      ...(r.effort !== undefined ? { effort: r.effort } : {}),
      ...(r.spec.posture !== undefined ? { posture: r.spec.posture } : {}),
      status: this.status,
      lastSeq: this.published,
      createdAt: r.createdAt,
      updatedAt: this.updatedAt,
      worker: this.current.worker,
      ...(r.labels !== undefined ? { labels: r.labels } : {}),
    };
  }

  v1Listing(): V1SessionListing {
    const r = this.current.session;
    return {
      sessionId: this.id,
      harness: r.harness,
      ...(r.nativeSessionId !== undefined ? { nativeSessionId: r.nativeSessionId } : {}),
      status: v1Status(this.status),
      lastSeq: this.published,
      createdAt: r.createdAt,
    };
  }

  // ---- events -------------------------------------------------------------------------------------

  /**
   * Events of one feed message (or a read), in seq order: each handed on if it is the next one, held
   * if it is early; the subscriptions get those handed on (and the held ones they freed) as one run.
   */
  offer(events: readonly StoredEvent[]): void {
    let missing: number | undefined;
    this.inOneRun((run) => {
      for (const event of events) {
        if (this.deleted || event.seq <= this.published) continue;
        if (this.initialized && event.seq === this.published + 1) {
          this.publish(event, run);
          this.drainAhead(run);
          continue;
        }
        if (this.ahead.size >= MAX_AHEAD) this.ahead.clear(); // read back from the stream instead
        this.ahead.set(event.seq, event);
        missing = event.seq - 1;
      }
    });
    if (this.initialized && missing !== undefined) void this.catchUp(missing);
  }

  /**
   * What `take` publishes into its run goes to every subscription as that one array, then
   * sessions/changed when the status moved.
   */
  private inOneRun(take: (run: Entry[]) => void): void {
    const run: Entry[] = [];
    const statusBefore = this.status;
    take(run);
    if (run.length === 0) return;
    for (const sink of [...this.sinks.values()]) sink(run);
    if (this.status !== statusBefore) this.host.changed(this.id, 'updated');
  }

  /** Takes the next event into the view and `run`. */
  private publish(event: StoredEvent, run: Entry[]): void {
    let parsed: ReinsEvent;
    try {
      parsed = JSON.parse(event.json) as ReinsEvent;
    } catch {
      this.host.log.error('skipped a stored event that is not JSON', { sessionId: this.id, seq: event.seq });
      return;
    }
    const entry: Entry = { seq: event.seq, event: parsed, json: event.json, streamSeq: event.streamSeq };
    if (parsed.type === 'session.status') this.statusEvent = { status: parsed.status, seq: event.seq };
    this.published = event.seq;
    if (typeof parsed.at === 'number') this.newestAt = Math.max(this.newestAt, parsed.at);
    this.tail.push(entry);
    run.push(entry);
  }

  /** Hands on the held events that follow on now, into `run`. */
  private drainAhead(run: Entry[]): void {
    for (;;) {
      for (const seq of this.ahead.keys()) if (seq <= this.published) this.ahead.delete(seq);
      const next = this.ahead.get(this.published + 1);
      if (!next) return;
      this.ahead.delete(next.seq);
      this.publish(next, run);
    }
  }

  /** The held events that follow on now, handed on as one run. */
  private releaseAhead(): void {
    this.inOneRun((run) => this.drainAhead(run));
  }

  /** Reads what is missing up to `toSeq` from the stream and hands it on (one catch-up at a time). */
  private catchUp(toSeq: number): Promise<void> {
    this.catchingUp = this.catchingUp.then(async () => {
      try {
        while (!this.deleted && this.published < toSeq) {
          const page = await this.host.readStored(
            this.id,
            this.published,
            Math.min(CATCH_UP_PAGE, toSeq - this.published),
          );
          if (page.length === 0) break;
          this.inOneRun((run) => {
            for (const event of page) if (event.seq === this.published + 1) this.publish(event, run);
          });
        }
      } catch (error) {
        this.host.log.error('could not read missing events', { sessionId: this.id, error: (error as Error).message });
      }
      this.releaseAhead();
    });
    return this.catchingUp;
  }

  /** Brings the view up to at least `seq` when the stream has it (a client saw it through another gateway). */
  async reach(seq: number): Promise<void> {
    await this.ready;
    if (seq <= this.published) return;
    const newest = await this.host.newestStored(this.id);
    if (newest && newest.seq > this.published) await this.catchUp(Math.max(seq, newest.seq));
  }

  addSink(owner: object, sink: EventSink): void {
    if (!this.deleted) this.sinks.set(owner, sink);
  }

  removeSink(owner: object): void {
    this.sinks.delete(owner);
  }

  readEvents(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    if (afterSeq > this.published) {
      throw new ReinsError(
        'invalid_input',
        `afterSeq ${afterSeq} is past the newest event of this session (seq ${this.published}).`,
        { data: { afterSeq, lastSeq: this.published } },
      );
    }
    if (this.deleted || afterSeq === this.published) return Promise.resolve([]);
    if (this.tail.covers(afterSeq)) return Promise.resolve(this.tail.slice(afterSeq, limit));
    return this.readOlder(afterSeq, Math.min(limit, this.tail.oldestSeq - 1 - afterSeq));
  }

  private async readOlder(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    // The message the last page ended in may hold the next events too: read on from it.
    const start = this.lastRead?.seq === afterSeq ? this.lastRead.streamSeq : undefined;
    const page = await this.host.readStored(this.id, afterSeq, limit, start);
    const last = page.at(-1);
    if (last) this.lastRead = { seq: last.seq, streamSeq: last.streamSeq };
    const out: PublishedEvent[] = [];
    for (const event of page) {
      if (event.seq > this.published) break;
      try {
        out.push({ seq: event.seq, event: JSON.parse(event.json) as ReinsEvent, json: event.json });
      } catch {
        this.host.log.error('skipped a stored event that is not JSON', { sessionId: this.id, seq: event.seq });
      }
    }
    return out;
  }

  // ---- client requests (routed by the gateway) ----------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.host.route(this, 'session/send', {
      sessionId: this.id,
      input,
      ...(options !== undefined ? { options } : {}),
    }) as Promise<SendResult>;
  }

  async interrupt(): Promise<void> {
    await this.host.route(this, 'session/interrupt', { sessionId: this.id });
  }

  setModel(model: string): Promise<SettingChange> {
    return this.host.route(this, 'session/setModel', { sessionId: this.id, model }) as Promise<SettingChange>;
  }

  setEffort(effort: Effort): Promise<SettingChange> {
    return this.host.route(this, 'session/setEffort', { sessionId: this.id, effort }) as Promise<SettingChange>;
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    await this.host.route(this, 'session/respondToPermission', { sessionId: this.id, requestId, decision });
  }

  async close(): Promise<void> {
    await this.host.route(this, 'session/close', { sessionId: this.id });
  }
}
