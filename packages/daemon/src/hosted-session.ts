// A session that belongs to the daemon, not to any connection or process. Its id, settings and
// event log outlive the harness process behind it: the process can be stopped (idle eviction, a
// daemon restart) or die, and the session is then `dormant`; the next send starts a new process
// that resumes the native conversation (spec.resume), and the log continues at the next seq with a
// notice saying so. A resume that fails is `resume_failed`, never a silent fresh start.
//
// Each process is an "incarnation" with a generation number; the daemon re-envelopes its events
// (envelope.ts: seq, sessionId, and turn and item ids made unique across processes). A
// session.closed the adapter emits when the daemon stopped the process, or when the process died,
// is not logged: the session did not close, it went dormant.
import { randomUUID } from 'node:crypto';
import {
  type Effort,
  type EventPayload,
  type Harness,
  type HarnessId,
  type McpServerStatus,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionDiff,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import type {
  HostedSessionStatus,
  SessionChange,
  SessionCreateParams,
  SessionListing,
  V1SessionListing,
} from '@reins/protocol';
import { Activity } from './activity.js';
import { CrashedTurn, dormantNotice, resumedNotice, resumeFailedError } from './daemon-events.js';
import { generationId, reenvelope } from './envelope.js';
import { Incarnation, type SleepReason } from './incarnation.js';
import type { Logger } from './logger.js';
import type { ProcessTracker } from './processes/tracker.js';
import { type CheckpointedSession, diffSession, forgetCheckpoints, revertSession } from './session-checkpoints.js';
import { type EventSink, type PublishedEvent, SessionLog } from './session-log.js';
import { SessionRecord } from './session-record.js';
import type { DaemonStore, LoadedSession, StoredSession } from './store/store.js';

export interface HostedSessionDeps {
  store: DaemonStore;
  log: Logger;
  tracker: ProcessTracker;
  /** The harness for a session, with the daemon's options under the session's own. */
  harnessFor(record: StoredSession, transientOptions: Record<string, unknown> | undefined): Promise<Harness>;
  tailSize: number;
  /** What the sleep notices say about the limits. */
  limits: { idleTtlMs: number; maxLiveSessions: number };
  /** sessions/changed, and the host's chance to enforce the live-session cap. */
  changed(session: HostedSession, change: SessionChange): void;
}

export class HostedSession {
  readonly id: string;
  readonly harness: HarnessId;
  private readonly record: SessionRecord;
  private state: HostedSessionStatus;
  private live: Incarnation | undefined;
  /** A start, resume or stop in progress: everything else waits for it. */
  private transition: Promise<unknown> | undefined;
  private readonly log: SessionLog;
  private readonly activity = new Activity();
  private inFlight = 0;
  private lastUsed = Date.now();
  private deleted = false;

  private constructor(
    private readonly deps: HostedSessionDeps,
    record: StoredSession,
    lastSeq: number,
    status: HostedSessionStatus,
    /** Options a client gave at create, baseEnv included: kept in memory only, for resumes in this run. */
    private readonly transientOptions?: Record<string, unknown>,
  ) {
    this.id = record.sessionId;
    this.harness = record.harness;
    this.record = new SessionRecord(record, deps.store, deps.log);
    this.state = status;
    this.log = new SessionLog(this.id, this.harness, deps.store, deps.tailSize, lastSeq, {
      published: (event) => this.published(event),
      failed: (error) => this.storeFailed(error),
    });
  }

  /** A new session: recorded first (status starting), then its harness process is started. */
  static async create(
    deps: HostedSessionDeps,
    harness: HarnessId,
    spec: SessionSpec,
    harnessOptions: Record<string, unknown> | undefined,
    labels?: Record<string, string>,
  ): Promise<HostedSession> {
    const now = Date.now();
    const { baseEnv, ...storable } = harnessOptions ?? {};
    const record: StoredSession = {
      sessionId: randomUUID(),
      harness,
      cwd: spec.cwd,
      spec,
      ...(Object.keys(storable).length > 0 ? { harnessOptions: storable } : {}),
      ...(baseEnv !== undefined ? { hadBaseEnv: true } : {}),
      ...(labels !== undefined && Object.keys(labels).length > 0 ? { labels } : {}),
      ...(spec.model !== undefined ? { model: spec.model } : {}),
      ...(spec.effort !== undefined ? { effort: spec.effort } : {}),
      state: 'open',
      generation: 0,
      createdAt: now,
      updatedAt: now,
    };
    await deps.store.putSession(record);
    return new HostedSession(deps, record, 0, 'starting', harnessOptions);
  }

  /** A session from the store after a restart: dormant (or closed), with its log. */
  static restore(deps: HostedSessionDeps, loaded: LoadedSession): HostedSession {
    const { lastSeq, ...record } = loaded;
    return new HostedSession(deps, record, lastSeq, record.state === 'closed' ? 'closed' : 'dormant');
  }

  // ---- what the daemon reads ----------------------------------------------------------------------

  get status(): HostedSessionStatus {
    return this.state;
  }

  get lastSeq(): number {
    return this.log.lastSeq;
  }

  get nativeSessionId(): string | undefined {
    return this.record.current.nativeSessionId;
  }

  get createdAt(): number {
    return this.record.current.createdAt;
  }

  get updatedAt(): number {
    return this.record.current.updatedAt;
  }

  get closedAt(): number | undefined {
    return this.record.current.closedAt;
  }

  /** When a client last used it or it last emitted (the idle clock and the LRU order). */
  get lastUsedAt(): number {
    return this.lastUsed;
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  /**
   * A harness process is up for it (or being started), counted against the live-session cap. One
   * being stopped is on its way out and no longer counts (else one wake-up evicts twice).
   */
  get isLive(): boolean {
    return this.live?.mode === 'running' || this.state === 'starting';
  }

  /** Why it must not be evicted now (undefined: it may be). */
  get busyReason(): string | undefined {
    if (this.live?.mode !== 'running' || this.transition) return 'it is not running idle';
    if (this.inFlight > 0) return `${this.inFlight} request(s) are in progress`;
    if (this.record.current.spec.ephemeral) return 'an ephemeral session cannot be resumed';
    return this.activity.busyReason;
  }

  listing(): SessionListing {
    return this.record.listing(this.state, this.log.lastSeq);
  }

  v1Listing(): V1SessionListing {
    return this.record.v1Listing(this.state, this.log.lastSeq);
  }

  // ---- subscriptions ------------------------------------------------------------------------------

  addSink(owner: object, sink: EventSink): void {
    if (this.state !== 'closed' && !this.deleted) this.log.addSink(owner, sink);
  }

  removeSink(owner: object): void {
    this.log.removeSink(owner);
  }

  /** Published events after `afterSeq` (at most `limit`); invalid_input when afterSeq is past the newest. */
  readEvents(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    if (afterSeq > this.log.lastSeq) {
      throw new ReinsError(
        'invalid_input',
        `afterSeq ${afterSeq} is past the newest event of this session (seq ${this.log.lastSeq}).`,
        { data: { afterSeq, lastSeq: this.log.lastSeq } },
      );
    }
    if (this.deleted) return Promise.resolve([]);
    return this.log.read(afterSeq, limit);
  }

  // ---- lifecycle ------------------------------------------------------------------------------------

  /** Starts the first harness process (right after create). */
  async start(): Promise<void> {
    const work = this.launch(false);
    this.transition = work;
    try {
      await work;
    } finally {
      if (this.transition === work) this.transition = undefined;
    }
  }

  private async launch(resume: boolean): Promise<void> {
    this.setStatus('starting');
    const stored = this.record.current;
    const generation = resume ? stored.generation + 1 : 0;
    const native = stored.nativeSessionId;
    const fallback = stored.spec.resume?.fallback; // allowed at create: for every resume (contract.md, principle 6)
    const spec: SessionSpec =
      resume && native !== undefined ? { ...stored.spec, resume: { nativeSessionId: native, fallback } } : stored.spec;
    const harness = await this.deps.harnessFor(stored, this.transientOptions);
    const incarnation = await Incarnation.start(harness, spec, generation, {
      event: (from, event) => this.take(from, event),
      ended: (from) => this.incarnationEnded(from),
      run: (work) => this.deps.tracker.run(this.id, work),
      log: this.deps.log,
      sessionId: this.id,
    });
    if (this.deleted || this.state === 'closed') {
      await incarnation.stop();
      throw new ReinsError('invalid_input', `Session ${this.id} was closed while its process started.`);
    }
    this.activity.reset();
    this.live = incarnation;
    if (generation !== stored.generation) this.record.update({ generation });
    // An adapter that knows its conversation id at start (Codex answers thread/start and
    // thread/fork with it) has it recorded now, not when its session.updated is pumped: the
    // session/create and session/fork answers carry it.
    const known = incarnation.session.nativeSessionId;
    if (known !== undefined && known !== stored.nativeSessionId) this.record.update({ nativeSessionId: known });
    // What the new process said about itself so far (usually nothing yet: idle).
    this.setStatus(this.activity.status);
  }

  private take(incarnation: Incarnation, event: ReinsEvent): void {
    if (this.deleted) return;
    if (event.type === 'session.closed') {
      incarnation.closedEvent = event;
      if (incarnation.mode !== 'closing') return;
    }
    const logged = reenvelope(event, {
      seq: this.log.nextSeq(),
      sessionId: this.id,
      generation: incarnation.generation,
    });
    if (logged.type === 'turn.started' && logged.turnId !== null) {
      // Stored no later than the event itself: a crash can then never leave a started turn unknown.
      this.record.openTurn({ turnId: logged.turnId, seq: logged.seq });
    }
    this.log.append(logged);
  }

  /** Appends an event the daemon itself says (notices, a dormant session's close, a failed resume). */
  private say(payload: EventPayload, turnId: string | null = null): void {
    if (this.deleted) return;
    this.log.append({
      ...payload,
      seq: this.log.nextSeq(),
      harness: this.harness,
      sessionId: this.id,
      turnId,
      at: Date.now(),
    } as ReinsEvent);
  }

  /**
   * After a crash (the daemon was killed mid-turn): the turn that was running has no terminal in
   * the log. Its open items are closed and it ends `failed` (process_exited), so that every turn
   * of the log has exactly one terminal. Runs once, at start, before any client is served.
   */
  async endTurnLeftByCrash(): Promise<boolean> {
    const open = this.record.current.openTurn;
    if (!open) return false;
    const scan = new CrashedTurn(open);
    let after = open.seq - 1;
    for (;;) {
      const page = await this.log.read(after, 500);
      if (page.length === 0) break;
      for (const { event } of page) {
        after = event.seq;
        scan.observe(event);
      }
    }
    const closing = scan.closing();
    for (const payload of closing) this.say(payload, open.turnId);
    this.record.openTurn(null);
    await this.log.idle();
    return closing.length > 0;
  }

  private incarnationEnded(incarnation: Incarnation): void {
    if (this.live === incarnation) this.live = undefined;
    this.activity.reset();
    if (incarnation.mode === 'closing') {
      if (!incarnation.closedEvent) this.say({ type: 'session.closed', reason: 'requested' });
      this.markClosed();
      return;
    }
    if (this.state === 'closed' || this.deleted) return;
    const { idleTtlMs, maxLiveSessions } = this.deps.limits;
    const reason = incarnation.mode === 'sleeping' ? (incarnation.sleepReason ?? 'idle') : 'process_ended';
    const closed = incarnation.closedEvent;
    this.say(
      dormantNotice(reason, { harness: this.harness, idleTtlMs, maxLiveSessions, ...(closed ? { closed } : {}) }),
    );
    this.setStatus('dormant');
    void this.log.idle().then(() => {
      if (this.state === 'dormant') this.log.forgetTail();
    });
  }

  private markClosed(): void {
    this.record.update({ state: 'closed', closedAt: Date.now() });
    this.setStatus('closed', 'closed');
    void this.log.idle().then(() => this.log.clearSinks());
  }

  /** The live process, started (or resumed) first when there is none. */
  private async ensureLive(): Promise<Incarnation> {
    for (;;) {
      this.assertOpen();
      if (this.transition) {
        await this.transition.catch(() => {});
        continue;
      }
      const live = this.live;
      if (live?.mode === 'running') return live;
      if (live) {
        await live.ended;
        continue;
      }
      const waking = this.wake();
      this.transition = waking;
      try {
        await waking;
      } finally {
        if (this.transition === waking) this.transition = undefined;
      }
    }
  }

  private async wake(): Promise<void> {
    const native = this.record.current.nativeSessionId;
    const refuse = (message: string, cause?: unknown): never => {
      const error = new ReinsError('resume_failed', message, {
        harness: this.harness,
        operation: 'resume',
        ...(cause !== undefined ? { cause } : {}),
        data: { sessionId: this.id, ...(native !== undefined ? { nativeSessionId: native } : {}) },
      });
      this.say(resumeFailedError(message));
      this.setStatus('dormant');
      throw error;
    };
    if (native === undefined) {
      refuse(`Session ${this.id} cannot be resumed: its ${this.harness} harness never reported a conversation id.`);
    }
    if (this.record.current.spec.ephemeral) {
      refuse(
        `Session ${this.id} cannot be resumed: it is ephemeral, so ${this.harness} kept no conversation to resume.`,
      );
    }
    try {
      await this.launch(true);
    } catch (error) {
      const cause = ReinsError.from(error, 'resume_failed');
      refuse(`Could not resume the ${this.harness} conversation ${native}: ${cause.message}`, cause);
    }
    const baseEnvDropped = this.record.current.hadBaseEnv === true && !this.transientOptions;
    this.say(resumedNotice(this.harness, native as string, this.record.current.generation, baseEnvDropped));
  }

  /**
   * What session/create takes to fork this session's conversation: the same harness, options and
   * settings, resuming its native conversation with `fork` (the adapter starts a new one on a copy).
   */
  forkParams(): SessionCreateParams {
    this.assertOpen();
    const current = this.record.current;
    const native = current.nativeSessionId;
    if (native === undefined || current.spec.ephemeral) {
      throw new ReinsError(
        'invalid_input',
        `Session ${this.id} cannot be forked: ${native === undefined ? `its ${this.harness} harness has not reported a conversation id yet` : 'it is ephemeral, so there is no conversation to copy'}.`,
        { data: { sessionId: this.id } },
      );
    }
    const options = this.transientOptions ?? current.harnessOptions;
    return {
      harness: this.harness,
      spec: { ...current.spec, resume: { nativeSessionId: native, fork: true } },
      ...(options !== undefined ? { harnessOptions: options as SessionCreateParams['harnessOptions'] } : {}),
      ...(current.labels !== undefined ? { labels: current.labels } : {}),
    };
  }

  /** session/diff and session/revert (session-checkpoints.ts): the live process's turns, or the stored ones. */
  diff(turnId?: string): Promise<SessionDiff> {
    this.assertOpen();
    return this.deps.tracker.run(this.id, () => diffSession(this.checkpointed(), turnId));
  }

  revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    this.assertOpen();
    return this.deps.tracker.run(this.id, () => revertSession(this.checkpointed(), turnId, options));
  }

  private checkpointed(): CheckpointedSession {
    const { cwd, openTurn } = this.record.current;
    const live = this.live?.mode === 'running' ? this.live : undefined;
    const read = (afterSeq: number, limit: number) => this.log.read(afterSeq, limit);
    return { id: this.id, harness: this.harness, cwd, live, turnOpen: openTurn !== undefined, read };
  }

  /** The MCP servers as the live harness reports them; a dormant session has no live report. */
  async mcpStatus(): Promise<McpServerStatus[]> {
    this.assertOpen();
    const live = this.live;
    if (live?.mode !== 'running') {
      throw new ReinsError(
        'invalid_input',
        `Session ${this.id} has no live process (it is ${this.state}): send a turn to wake it, then ask again.`,
        { data: { sessionId: this.id } },
      );
    }
    const session = live.session;
    if (!session.mcpStatus) {
      throw new ReinsError('unsupported_capability', `The ${this.harness} harness reports no MCP server status.`, {
        harness: this.harness,
        operation: 'mcpStatus',
      });
    }
    return this.deps.tracker.run(this.id, () => session.mcpStatus?.() ?? Promise.resolve([]));
  }

  private assertOpen(): void {
    if (this.deleted)
      throw new ReinsError('invalid_input', `Session ${this.id} was deleted.`, { data: { sessionId: this.id } });
    if (this.state === 'closed') {
      throw new ReinsError(
        'invalid_input',
        `Session ${this.id} is closed; create a new one (or resume its conversation).`,
        {
          data: { sessionId: this.id },
        },
      );
    }
  }

  /** Runs a client request against the live process (started or resumed first), counted as in progress. */
  private async withLive<T>(work: (incarnation: Incarnation) => Promise<T>): Promise<T> {
    this.inFlight++;
    this.lastUsed = Date.now();
    try {
      const incarnation = await this.ensureLive();
      return await this.deps.tracker.run(this.id, () => work(incarnation));
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }

  // ---- client requests ------------------------------------------------------------------------------

  async send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    this.assertOpen();
    // A turn the store cannot record is never given to the harness (store_unavailable).
    await this.writable();
    return this.withLive(async (incarnation) => {
      const result = await incarnation.session.send(input, options);
      this.log.assertWritable();
      return { ...result, turnId: generationId(result.turnId, incarnation.generation) };
    });
  }

  /** session/compact: the live process (started or resumed first) compacts, as a turn of its own. */
  async compact(): Promise<SendResult> {
    this.assertOpen();
    await this.writable();
    return this.withLive(async (incarnation) => {
      const session = incarnation.session;
      if (!session.compact)
        throw new ReinsError(
          'unsupported_capability',
          `The ${this.harness} harness cannot be asked to compact its conversation (it compacts by itself when its context fills).`,
          { harness: this.harness, operation: 'compact' },
        );
      const result = await session.compact();
      this.log.assertWritable();
      return { ...result, turnId: generationId(result.turnId, incarnation.generation) };
    });
  }

  /**
   * Resolves once the store takes this session's writes: the log's held events and the record's
   * refused changes written first; else rejects with store_unavailable (nothing was changed).
   */
  private async writable(): Promise<void> {
    await this.log.ensureWritable();
    await this.record.catchUp();
  }

  async interrupt(): Promise<void> {
    this.assertOpen();
    this.lastUsed = Date.now();
    const live = this.live;
    if (live?.mode === 'running') await this.deps.tracker.run(this.id, () => live.session.interrupt());
  }

  setModel(model: string): Promise<SettingChange> {
    return this.changeSetting({ model }, (session) => session.setModel(model));
  }

  setEffort(effort: Effort): Promise<SettingChange> {
    return this.changeSetting({ effort }, (session) => session.setEffort(effort));
  }

  /** Live: the harness applies it. Dormant: it is kept for the next process (the spec resumes with it). */
  private async changeSetting(
    change: { model: string } | { effort: Effort },
    apply: (session: Session) => Promise<SettingChange>,
  ): Promise<SettingChange> {
    this.assertOpen();
    this.lastUsed = Date.now();
    // A setting the store cannot keep is refused before the harness applies it.
    await this.writable();
    const live = this.live;
    const result: SettingChange =
      live?.mode === 'running'
        ? await this.deps.tracker.run(this.id, () => apply(live.session))
        : { applied: 'next_turn' };
    this.record.update({ spec: { ...this.record.current.spec, ...change } });
    return result;
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    this.assertOpen();
    this.lastUsed = Date.now();
    const live = this.live;
    if (live?.mode !== 'running') {
      throw new ReinsError(
        'invalid_input',
        `Session ${this.id} has no process waiting for permission request ${requestId} (it is ${this.state}).`,
        { data: { sessionId: this.id, requestId } },
      );
    }
    await this.deps.tracker.run(this.id, () => live.session.respondToPermission(requestId, decision));
  }

  /** The client closes the session: the process ends, session.closed is logged, the session stays listed. */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.deleted) return this.log.idle();
    // Never refused for want of a store: the user wants the process gone (a store that cannot write, a full
    // disk or a worker cut off from NATS, would otherwise keep it running, or hang the close). What the
    // close could not record catches up with the session's next write (SessionRecord.catchUp).
    if (this.transition) await this.transition.catch(() => {});
    const live = this.live;
    if (live) {
      live.mode = 'closing';
      await live.stop();
    } else {
      this.say({ type: 'session.closed', reason: 'requested' });
      this.markClosed();
    }
    await this.log.idle();
  }

  /** The daemon stops the process (eviction, shutdown); the session goes dormant. */
  async sleep(reason: SleepReason): Promise<void> {
    if (this.transition) await this.transition.catch(() => {});
    const live = this.live;
    if (live?.mode === 'running') {
      live.mode = 'sleeping';
      live.sleepReason = reason;
      this.deps.log.info('session going dormant', { sessionId: this.id, reason });
      await live.stop();
    } else if (live) {
      await live.ended;
    }
    await this.log.idle();
  }

  /** Closes it (when open) and forgets it with its whole log. */
  async delete(): Promise<void> {
    if (this.deleted) return;
    await this.close();
    await this.forget();
    this.deps.changed(this, 'deleted');
  }

  /** Forgets it without closing (the daemon drops old closed sessions). */
  async forget(): Promise<void> {
    // The store first: one that cannot write (store_unavailable) leaves the session as it was.
    await this.deps.store.deleteSession(this.id);
    this.deleted = true;
    this.record.forget();
    this.log.clearSinks();
    await forgetCheckpoints(this.checkpointed()).catch((error: unknown) =>
      this.deps.log.warn('could not delete the checkpoint refs', { sessionId: this.id, error: String(error) }),
    );
  }

  // ---- bookkeeping ----------------------------------------------------------------------------------

  private published(event: ReinsEvent): void {
    this.lastUsed = Date.now();
    this.record.touched(event.at);
    this.activity.observe(event);
    if (event.type === 'turn.completed' && this.record.current.openTurn?.turnId === event.turnId) {
      this.record.openTurn(null);
    }
    if (event.type === 'session.status' && this.live && this.state !== 'starting') this.setStatus(event.status);
    if (event.type === 'session.updated' && this.record.noteUpdate(event)) this.deps.changed(this, 'updated');
  }

  private setStatus(status: HostedSessionStatus, change: SessionChange = 'updated'): void {
    if (this.state === status) return;
    this.state = status;
    this.deps.changed(this, change);
  }

  private storeFailed(error: unknown): void {
    this.deps.log.error('the store refused events: stopping the session process', {
      sessionId: this.id,
      error: (error as Error).message,
    });
    // A turn whose turn.started was refused is not in the log: nothing may end it there either.
    const open = this.record.current.openTurn;
    if (open && open.seq > this.log.lastSeq) this.record.openTurn(null);
    const live = this.live;
    if (live?.mode === 'running') {
      live.mode = 'sleeping';
      void live.stop();
    }
  }
}
