// The lifecycle of a hosted session's harness process. The session's id, settings and event log
// outlive the process behind it: the process can be stopped (idle eviction, a daemon restart) or die,
// and the session is then `dormant`; the next use starts a new process that resumes the native
// conversation (spec.resume), and the log continues at the next seq with a notice saying so. A resume
// that fails is `resume_failed`, never a silent fresh start.
//
// Each process is an "incarnation" with a generation number; the daemon re-envelopes its events
// (envelope.ts: seq, sessionId, and turn and item ids made unique across processes). A
// session.closed the adapter emits when the daemon stopped the process, or when the process died,
// is not logged: the session did not close, it went dormant. What clients ask of the session is
// hosted-session.ts.
import type { EventPayload, Harness, HarnessId, ReinsEvent, SessionSpec } from '@reins/core';
import { ReinsError } from '@reins/core';
import type { HostedSessionStatus, SessionChange } from '@reins/protocol';
import { Activity } from './activity.js';
import { CrashedTurn, dormantNotice, resumedNotice, resumeFailedError } from './daemon-events.js';
import { reenvelope } from './envelope.js';
import { Incarnation, type SleepReason } from './incarnation.js';
import type { Logger } from './logger.js';
import type { ProcessTracker } from './processes/tracker.js';
import { SessionLog } from './session-log.js';
import { SessionRecord } from './session-record.js';
import type { DaemonStore, StoredSession } from './store/store.js';

/** What the daemon gives every hosted session's process lifecycle. */
export interface SessionLifecycleDeps {
  store: DaemonStore;
  log: Logger;
  tracker: ProcessTracker;
  /** The harness for a session, with the daemon's options under the session's own. */
  harnessFor(record: StoredSession, transientOptions: Record<string, unknown> | undefined): Promise<Harness>;
  tailSize: number;
  /** What the sleep notices say about the limits. */
  limits: { idleTtlMs: number; maxLiveSessions: number };
}

export abstract class HostedSessionLifecycle {
  readonly id: string;
  readonly harness: HarnessId;
  protected readonly record: SessionRecord;
  protected state: HostedSessionStatus;
  protected live: Incarnation | undefined;
  /** A start, resume or stop in progress: everything else waits for it. */
  protected transition: Promise<unknown> | undefined;
  protected readonly log: SessionLog;
  protected readonly activity = new Activity();
  protected inFlight = 0;
  protected lastUsed = Date.now();
  protected deleted = false;

  protected constructor(
    protected readonly deps: SessionLifecycleDeps,
    record: StoredSession,
    lastSeq: number,
    status: HostedSessionStatus,
    /** Options a client gave at create, baseEnv included: kept in memory only, for resumes in this run. */
    protected readonly transientOptions?: Record<string, unknown>,
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

  /** sessions/changed, and the host's chance to enforce the live-session cap. */
  protected abstract changed(change: SessionChange): void;

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
      carrier: incarnation.nativeCarrier,
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

  // ---- what every client request goes through (hosted-session.ts) -------------------------------

  protected assertOpen(): void {
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
  protected async withLive<T>(work: (incarnation: Incarnation) => Promise<T>): Promise<T> {
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

  /**
   * Resolves once the store takes this session's writes: the log's held events and the record's
   * refused changes written first; else rejects with store_unavailable (nothing was changed).
   */
  protected async writable(): Promise<void> {
    await this.log.ensureWritable();
    await this.record.catchUp();
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

  // ---- bookkeeping ----------------------------------------------------------------------------------

  private published(event: ReinsEvent): void {
    this.lastUsed = Date.now();
    this.record.touched(event.at);
    this.activity.observe(event);
    if (event.type === 'turn.completed' && this.record.current.openTurn?.turnId === event.turnId) {
      this.record.openTurn(null);
    }
    if (event.type === 'session.status' && this.live && this.state !== 'starting') this.setStatus(event.status);
    if (event.type === 'session.updated' && this.record.noteUpdate(event)) this.changed('updated');
  }

  private setStatus(status: HostedSessionStatus, change: SessionChange = 'updated'): void {
    if (this.state === status) return;
    this.state = status;
    this.changed(change);
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
