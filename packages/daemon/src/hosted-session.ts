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
import type { HostedSessionStatus, SessionChange, SessionListing, V1SessionListing } from '@reins/client';
import { v1Status } from '@reins/client';
import {
  type Effort,
  EffortSchema,
  type EventPayload,
  type Harness,
  type HarnessId,
  type Item,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import { Activity } from './activity.js';
import { generationId, reenvelope } from './envelope.js';
import type { Logger } from './logger.js';
import type { ProcessTracker } from './processes/tracker.js';
import { type EventSink, type PublishedEvent, SessionLog } from './session-log.js';
import type { DaemonStore, LoadedSession, SessionPatch, StoredSession } from './store/store.js';

/** Why the daemon stopped a session's process. */
export type SleepReason = 'idle' | 'lru' | 'shutdown';

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

/** How long close waits for a harness's last events after session.close() returned. */
const DRAIN_DEADLINE_MS = 10_000;

interface Incarnation {
  session: Session;
  generation: number;
  /** running: serving; sleeping: the daemon stops it; closing: the client closes the session. */
  mode: 'running' | 'sleeping' | 'closing';
  sleepReason?: SleepReason;
  /** The adapter's session.closed, held back unless the client closed the session. */
  closedEvent?: Extract<ReinsEvent, { type: 'session.closed' }>;
  ended: Promise<void>;
}

const duration = (ms: number) => {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
};

export class HostedSession {
  readonly id: string;
  readonly harness: HarnessId;
  private record: StoredSession;
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
    this.record = record;
    this.state = status;
    this.log = new SessionLog(this.id, deps.store, deps.tailSize, lastSeq, {
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
    return this.record.nativeSessionId;
  }

  get createdAt(): number {
    return this.record.createdAt;
  }

  get updatedAt(): number {
    return this.record.updatedAt;
  }

  get closedAt(): number | undefined {
    return this.record.closedAt;
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
    if (this.record.spec.ephemeral) return 'an ephemeral session cannot be resumed';
    return this.activity.busyReason;
  }

  listing(): SessionListing {
    const r = this.record;
    return {
      sessionId: this.id,
      harness: this.harness,
      ...(r.nativeSessionId !== undefined ? { nativeSessionId: r.nativeSessionId } : {}),
      cwd: r.cwd,
      ...(r.title !== undefined ? { title: r.title } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      ...(r.effort !== undefined ? { effort: r.effort } : {}),
      status: this.state,
      lastSeq: this.log.lastSeq,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  v1Listing(): V1SessionListing {
    return {
      sessionId: this.id,
      harness: this.harness,
      ...(this.record.nativeSessionId !== undefined ? { nativeSessionId: this.record.nativeSessionId } : {}),
      status: v1Status(this.state),
      lastSeq: this.log.lastSeq,
      createdAt: this.record.createdAt,
    };
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
    const generation = resume ? this.record.generation + 1 : 0;
    const native = this.record.nativeSessionId;
    const spec: SessionSpec =
      resume && native !== undefined ? { ...this.record.spec, resume: { nativeSessionId: native } } : this.record.spec;
    const harness = await this.deps.harnessFor(this.record, this.transientOptions);
    const session = await this.deps.tracker.run(this.id, () => harness.createSession(spec));
    if (resume && session.nativeSessionId !== undefined && session.nativeSessionId !== native) {
      await session.close();
      throw new ReinsError(
        'resume_failed',
        `The ${this.harness} harness resumed conversation ${session.nativeSessionId} instead of ${native}: refused (never a silent fresh start).`,
        { harness: this.harness, operation: 'resume', data: { expected: native, got: session.nativeSessionId } },
      );
    }
    if (this.deleted || this.state === 'closed') {
      await session.close();
      throw new ReinsError('invalid_input', `Session ${this.id} was closed while its process started.`);
    }
    const incarnation: Incarnation = { session, generation, mode: 'running', ended: Promise.resolve() };
    this.activity.reset();
    this.live = incarnation;
    incarnation.ended = this.pump(incarnation);
    if (generation !== this.record.generation) {
      this.record.generation = generation;
      this.persist({ generation });
    }
    // What the new process said about itself so far (usually nothing yet: idle).
    this.setStatus(this.activity.status);
  }

  private async pump(incarnation: Incarnation): Promise<void> {
    try {
      for await (const event of incarnation.session.events) this.take(incarnation, event);
    } catch (error) {
      this.deps.log.error('session event stream failed', { sessionId: this.id, error: (error as Error).message });
    } finally {
      this.incarnationEnded(incarnation);
    }
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
      this.record.openTurn = { turnId: logged.turnId, seq: logged.seq };
      this.persist({ openTurn: this.record.openTurn });
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
    const open = this.record.openTurn;
    if (!open) return false;
    const items = new Map<string, Item>();
    let ended = false;
    let after = open.seq - 1;
    for (;;) {
      const page = await this.log.read(after, 500);
      if (page.length === 0) break;
      for (const { event } of page) {
        after = event.seq;
        if (event.turnId !== open.turnId) continue;
        if (event.type === 'item.started') items.set(event.item.id, event.item);
        else if (event.type === 'item.completed') items.delete(event.item.id);
        else if (event.type === 'turn.completed') ended = true;
      }
    }
    if (!ended) {
      for (const item of items.values())
        this.say({ type: 'item.completed', item: { ...item, status: 'failed' } }, open.turnId);
      const message =
        'The Reins daemon ended (killed or crashed) while this turn ran, and its harness process with it.';
      this.say(
        { type: 'turn.completed', outcome: { status: 'failed', error: { code: 'process_exited', message } } },
        open.turnId,
      );
    }
    delete this.record.openTurn;
    this.persist({ openTurn: null });
    await this.log.idle();
    return !ended;
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
    const harness = this.harness;
    const next = 'the session is dormant and the next send resumes the conversation';
    if (incarnation.mode === 'sleeping') {
      const reason = incarnation.sleepReason ?? 'idle';
      const why =
        reason === 'shutdown'
          ? 'The Reins daemon stopped'
          : reason === 'idle'
            ? `The ${harness} process was stopped after ${duration(this.deps.limits.idleTtlMs)} idle`
            : `The ${harness} process was stopped to stay within ${this.deps.limits.maxLiveSessions} live sessions (least recently used first)`;
      this.say({ type: 'notice', kind: 'info', message: `${why}; ${next}.`, data: { dormant: reason } });
    } else {
      const closed = incarnation.closedEvent;
      const detail = closed?.error?.message ? `: ${closed.error.message}` : '';
      this.say({
        type: 'notice',
        kind: 'warning',
        message: `The ${harness} process ended (${closed?.reason ?? 'process_exited'}${detail}); ${next}.`,
        data: { dormant: 'process_ended', ...(closed?.error ? { error: closed.error } : {}) },
      });
    }
    this.setStatus('dormant');
    void this.log.idle().then(() => {
      if (this.state === 'dormant') this.log.forgetTail();
    });
  }

  private markClosed(): void {
    const now = Date.now();
    this.record.state = 'closed';
    this.record.closedAt = now;
    this.persist({ state: 'closed', closedAt: now });
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
    const native = this.record.nativeSessionId;
    const refuse = (message: string, cause?: unknown): never => {
      const error = new ReinsError('resume_failed', message, {
        harness: this.harness,
        operation: 'resume',
        ...(cause !== undefined ? { cause } : {}),
        data: { sessionId: this.id, ...(native !== undefined ? { nativeSessionId: native } : {}) },
      });
      this.say({ type: 'error', code: 'resume_failed', message, fatal: false });
      this.setStatus('dormant');
      throw error;
    };
    if (native === undefined) {
      refuse(`Session ${this.id} cannot be resumed: its ${this.harness} harness never reported a conversation id.`);
    }
    if (this.record.spec.ephemeral) {
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
    const env =
      this.record.hadBaseEnv && !this.transientOptions
        ? ' (without the base environment given at create: it is never stored)'
        : '';
    this.say({
      type: 'notice',
      kind: 'info',
      message: `Resumed the ${this.harness} conversation ${native} in a new process${env}.`,
      data: { resumed: { nativeSessionId: native, generation: this.record.generation } },
    });
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
    return this.withLive(async (incarnation) => {
      const result = await incarnation.session.send(input, options);
      return { ...result, turnId: generationId(result.turnId, incarnation.generation) };
    });
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
    const live = this.live;
    const result: SettingChange =
      live?.mode === 'running'
        ? await this.deps.tracker.run(this.id, () => apply(live.session))
        : { applied: 'next_turn' };
    this.record.spec = { ...this.record.spec, ...change };
    this.persist({ spec: this.record.spec });
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
    if (this.transition) await this.transition.catch(() => {});
    const live = this.live;
    if (live) {
      live.mode = 'closing';
      await this.stopProcess(live);
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
      await this.stopProcess(live);
    } else if (live) {
      await live.ended;
    }
    await this.log.idle();
  }

  private async stopProcess(incarnation: Incarnation): Promise<void> {
    await this.deps.tracker.run(this.id, () => incarnation.session.close());
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      incarnation.ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.deps.log.warn('session events did not end after close', { sessionId: this.id });
          resolve();
        }, DRAIN_DEADLINE_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Closes it (when open) and forgets it with its whole log. */
  async delete(): Promise<void> {
    if (this.deleted) return;
    await this.close();
    this.deleted = true;
    this.log.clearSinks();
    await this.deps.store.deleteSession(this.id);
    this.deps.changed(this, 'deleted');
  }

  /** Forgets it without closing (the daemon drops old closed sessions). */
  async forget(): Promise<void> {
    this.deleted = true;
    this.log.clearSinks();
    await this.deps.store.deleteSession(this.id);
  }

  // ---- bookkeeping ----------------------------------------------------------------------------------

  private published(event: ReinsEvent): void {
    this.lastUsed = Date.now();
    this.record.updatedAt = Math.max(this.record.updatedAt, event.at);
    this.activity.observe(event);
    if (event.type === 'turn.completed' && this.record.openTurn?.turnId === event.turnId) {
      delete this.record.openTurn;
      this.persist({ openTurn: null });
    }
    if (event.type === 'session.status' && this.live && this.state !== 'starting') this.setStatus(event.status);
    if (event.type === 'session.updated') this.noteUpdate(event);
  }

  private noteUpdate(event: Extract<ReinsEvent, { type: 'session.updated' }>): void {
    const patch: SessionPatch = {};
    if (event.nativeSessionId !== undefined && event.nativeSessionId !== this.record.nativeSessionId) {
      patch.nativeSessionId = event.nativeSessionId;
    }
    if (event.title !== undefined && event.title !== this.record.title) patch.title = event.title;
    if (event.model !== undefined && event.model !== this.record.model) patch.model = event.model;
    const effort = EffortSchema.safeParse(event.effort);
    if (effort.success && effort.data !== this.record.effort) patch.effort = effort.data;
    if (Object.keys(patch).length === 0) return;
    Object.assign(this.record, patch);
    this.persist(patch);
    this.deps.changed(this, 'updated');
  }

  private setStatus(status: HostedSessionStatus, change: SessionChange = 'updated'): void {
    if (this.state === status) return;
    this.state = status;
    this.deps.changed(this, change);
  }

  private persist(patch: SessionPatch): void {
    if (this.deleted) return;
    this.deps.store.updateSession(this.id, patch).catch((error: unknown) =>
      this.deps.log.error('could not store a session change', {
        sessionId: this.id,
        error: (error as Error).message,
      }),
    );
  }

  private storeFailed(error: unknown): void {
    this.deps.log.error('the store refused events: stopping the session process', {
      sessionId: this.id,
      error: (error as Error).message,
    });
    const live = this.live;
    if (live?.mode === 'running') {
      live.mode = 'sleeping';
      void this.stopProcess(live);
    }
  }
}
