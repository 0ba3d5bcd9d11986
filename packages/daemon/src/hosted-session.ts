// A session that belongs to the daemon, not to any connection or process: what the daemon reads of
// it (status, listing, its event log) and what clients ask of it (turns, settings, permissions,
// checkpoints, fork, close, delete). The harness process behind it, started, resumed, put to sleep
// and stopped, is hosted-session-lifecycle.ts.
import { randomUUID } from 'node:crypto';
import {
  type Effort,
  type HarnessId,
  type McpServerStatus,
  type PermissionDecision,
  ReinsError,
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
import { generationId } from './envelope.js';
import { HostedSessionLifecycle, type SessionLifecycleDeps } from './hosted-session-lifecycle.js';
import { type CheckpointedSession, diffSession, forgetCheckpoints, revertSession } from './session-checkpoints.js';
import type { EventSink, PublishedEvent } from './session-log.js';
import type { LoadedSession, StoredSession } from './store/store.js';

export interface HostedSessionDeps extends SessionLifecycleDeps {
  /** sessions/changed, and the host's chance to enforce the live-session cap. */
  changed(session: HostedSession, change: SessionChange): void;
}

export class HostedSession extends HostedSessionLifecycle {
  private constructor(
    private readonly hostDeps: HostedSessionDeps,
    record: StoredSession,
    lastSeq: number,
    status: HostedSessionStatus,
    transientOptions?: Record<string, unknown>,
  ) {
    super(hostDeps, record, lastSeq, status, transientOptions);
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

  protected changed(change: SessionChange): void {
    this.hostDeps.changed(this, change);
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

  // ---- fork, checkpoints, MCP status -------------------------------------------------------------

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

  /** Closes it (when open) and forgets it with its whole log. */
  async delete(): Promise<void> {
    if (this.deleted) return;
    await this.close();
    await this.forget();
    this.changed('deleted');
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
}
