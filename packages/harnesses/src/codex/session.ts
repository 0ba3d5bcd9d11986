// The Codex session: one app-server thread per Reins session, on the session chassis
// (docs/architecture/contract.md, "Turn rules"); the app-server may host other sessions' threads
// too (host.ts routes each frame to its thread's session). The chassis owns the turn queue and ids, the send
// guards, the `user_message` item of every turn, interrupt and stall semantics, structured-output
// acceptance and the one closed-session error. This module keeps what is Codex's own: opening the
// thread (thread/start or thread/resume), delivering a turn (turn/start, with a model or effort
// change applied at that turn), steering (turn/steer), interrupting (turn/interrupt), telling
// Codex's native turn ids apart so that a late frame of a turn the chassis gave up on never touches a
// later turn, and routing every notification through `chassis.translate`.
import { randomUUID } from 'node:crypto';
import {
  type Effort,
  EffortSchema,
  isRecord,
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
  toCodexStrictSchema,
} from '@reins/core';
import { type ChassisTurn, SessionChassis, type TurnHost } from '../runtime/chassis/index.js';
import { sessionDiff } from '../runtime/checkpoints/index.js';
import type { JsonRpcId } from '../runtime/json-rpc.js';
import { CodexApprovals } from './approvals.js';
import { assertCodexSignedIn } from './auth.js';
import { COMPACTION_PLAN, startCompaction } from './compact.js';
import { type CodexConnection, type Connect, type ConnectionHooks, HARNESS, nativeFrame } from './connection.js';
import { versionFromUserAgent } from './discovery.js';
import { CodexFrameRouter } from './frame-router.js';
import { CodexMcpServers, unservedMcpStatus } from './mcp.js';
import { openThread } from './open-thread.js';
import { revertCodexTurn } from './revert.js';
import { threadAheadMissNotice } from './thread-ahead.js';
import { toUserInput } from './thread-params.js';
import { createTranslateState, type NotificationFrame, type TranslateState } from './translate.js';
import type { CodexTurnPlan } from './turn-plan.js';
import { NativeTurns, zeroBreakdown } from './turns.js';

export type { CodexTurnPlan } from './turn-plan.js';

import type {
  JsonValue,
  ListMcpServerStatusParams,
  ListMcpServerStatusResponse,
  TurnStartParams,
  TurnStartResponse,
} from './wire.js';

export interface CodexSessionOptions {
  connect: Connect;
  /** How long a permission request waits for respondToPermission before it is declined (ms). */
  permissionTimeoutMs?: number;
  /** After turn/interrupt, how long Codex has to end the turn before the chassis does (ms). */
  interruptGraceMs?: number;
}

type CodexTurn = ChassisTurn<CodexTurnPlan>;

export class CodexSession implements Session, TurnHost<CodexTurnPlan> {
  readonly id = `rs_${randomUUID()}`;
  readonly harness = HARNESS;
  private readonly chassis: SessionChassis<CodexTurnPlan>;
  private readonly approvals: CodexApprovals;
  private readonly state: TranslateState = createTranslateState();
  private connection: CodexConnection | undefined;
  private threadId: string | undefined;
  private model: string | undefined;
  private pendingModel: string | undefined;
  private pendingEffort: Effort | undefined;
  private readonly turns = new NativeTurns<CodexTurnPlan>();
  /** Frames that arrived before session.started was emitted. */
  private early: Array<() => void> | undefined = [];
  private closing: Promise<void> | undefined;
  private signInChecked = false;
  private readonly mcp: CodexMcpServers;
  private readonly router: CodexFrameRouter;

  constructor(
    private readonly spec: SessionSpec,
    private readonly options: CodexSessionOptions,
  ) {
    this.chassis = new SessionChassis<CodexTurnPlan>(this, {
      harness: HARNESS,
      displayName: 'Codex',
      sessionId: this.id,
      structuredOutput: 'native',
      spec,
      ...(options.interruptGraceMs !== undefined ? { interruptGraceMs: options.interruptGraceMs } : {}),
      // Codex with no network retries "waiting for network" for minutes: bounded (contract.md, "Turn rules").
      retryTimeoutMs: CODEX_RETRY_TIMEOUT_MS,
    });
    this.approvals = new CodexApprovals(
      { stream: this.chassis.stream, holdStallWatchdog: () => this.chassis.holdStallWatchdog() },
      options.permissionTimeoutMs,
    );
    this.model = spec.model;
    this.pendingEffort = spec.effort;
    this.mcp = new CodexMcpServers((spec.mcpServers ?? []).map((server) => server.name));
    this.router = new CodexFrameRouter({
      chassis: this.chassis,
      approvals: this.approvals,
      mcp: this.mcp,
      state: this.state,
      turns: this.turns,
      threadId: () => this.threadId,
    });
  }

  get nativeSessionId(): string | undefined {
    return this.threadId;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  private get stream() {
    return this.chassis.stream;
  }

  // ---- start ------------------------------------------------------------------------------------

  async start(): Promise<void> {
    const resume = this.spec.resume;
    const hooks: ConnectionHooks = {
      // No closure per frame once the session has started (`later` holds only the early ones).
      onNotification: (frame, at) => {
        if (this.early) this.early.push(() => this.onNotification(frame, at));
        else this.onNotification(frame, at);
      },
      onRequest: (method, params, id, frame) => this.onServerRequest(method, params, id, frame),
      onStray: (frame, at, reason) => this.later(() => this.onStray(frame, at, reason)),
      onOversizeLine: (bytes) => this.later(() => this.warnOversize(bytes)),
    };
    const resumed = resume && resume.fork !== true ? resume.nativeSessionId : undefined;
    const connection = await this.options.connect(this.spec.cwd, this.spec.env, hooks, resumed);
    this.connection = connection;
    void connection.exited.then(() => this.onExit());
    const version = versionFromUserAgent(String(connection.initialize?.userAgent ?? ''));
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: connection.binaryPath,
      ...(version ? { harnessVersion: version } : {}),
      ...(this.spec.model ? { model: this.spec.model } : {}),
    });
    const early = this.early ?? [];
    this.early = undefined;
    for (const run of early) run();
    try {
      await this.openThread(connection);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private later(run: () => void): void {
    if (this.early) this.early.push(run);
    else run();
  }

  private async openThread(connection: CodexConnection): Promise<void> {
    // A warm app-server may have opened a thread with this spec's settings already (thread-ahead.ts).
    const claim = await connection.claimThreadAhead?.(this.spec);
    const { response, thread } =
      claim?.kind === 'claimed' ? claim.opened : await openThread(connection.peer, this.spec);
    this.threadId = thread.id;
    this.state.threadId = thread.id;
    // From here the process's frames of this thread (and those that came first) are this session's.
    connection.bindThread(thread.id);
    if (typeof response.model === 'string') this.model = response.model;
    this.stream.emit({
      type: 'session.updated',
      nativeSessionId: thread.id,
      ...(typeof response.model === 'string' ? { model: response.model } : {}),
      ...(typeof response.reasoningEffort === 'string' ? { effort: response.reasoningEffort } : {}),
      ...(typeof thread.name === 'string' && thread.name ? { title: thread.name } : {}),
    });
    if (claim?.kind === 'miss') this.stream.emit(threadAheadMissNotice(claim.reason));
  }

  // ---- TurnHost: how a turn reaches Codex --------------------------------------------------------

  planTurn(input: TurnInput, options: SendOptions): CodexTurnPlan {
    const schema = options.outputSchema ?? this.spec.outputSchema;
    // toCodexStrictSchema throws invalid_input for a schema outside Codex's strict subset.
    return { input: toUserInput(input), strict: schema ? toCodexStrictSchema(schema) : undefined };
  }

  async beginTurn(turn: CodexTurn): Promise<void> {
    const model = this.pendingModel ?? this.model;
    const delivered = this.turns.deliver(turn, model);
    this.state.turnId = turn.turnId;
    this.state.planCount = 0;
    // A fresh thread starts at zero; after a resume the total is unknown until Codex reports one.
    this.state.totalAtTurnStart = this.state.lastTotal ?? (this.spec.resume ? undefined : zeroBreakdown());
    if (turn.compaction) return startCompaction(this.peer('compact'), this.turns, delivered, this.threadId as string);
    const params: TurnStartParams = {
      threadId: this.threadId as string,
      input: turn.plan.input,
      // Codex keeps it on its userMessage item as `clientId` (0.169.0, 0.171.0), so history carries it too.
      ...(turn.options.clientMessageId ? { clientUserMessageId: turn.options.clientMessageId } : {}),
      // turn/start takes model and effort "for this turn and subsequent turns".
      ...(this.pendingModel ? { model: this.pendingModel } : {}),
      ...(this.pendingEffort ? { effort: this.pendingEffort } : {}),
      ...(turn.plan.strict ? { outputSchema: turn.plan.strict.schema as JsonValue } : {}),
    };
    const appliedModel = this.pendingModel;
    const appliedEffort = this.pendingEffort;
    this.pendingModel = undefined;
    this.pendingEffort = undefined;
    if (appliedModel) this.model = appliedModel;
    if (appliedModel || appliedEffort) {
      this.stream.emit({
        type: 'session.updated',
        ...(appliedModel ? { model: appliedModel } : {}),
        ...(appliedEffort ? { effort: appliedEffort } : {}),
      });
    }
    let response: TurnStartResponse;
    try {
      response = await this.peer('send').request<TurnStartResponse>('turn/start', params);
    } catch (error) {
      // The chassis ends the turn failed with this error. If Codex does run it after all (a late answer
      // to a timed-out turn/start), its frames carry an id Reins never learned: a known limit.
      delivered.abandoned = true;
      this.turns.accepted(delivered, undefined);
      throw ReinsError.from(error, 'protocol_error', { harness: HARNESS, operation: 'turn/start' });
    }
    const answered: unknown = isRecord(response) ? response.turn : undefined;
    this.turns.accepted(delivered, isRecord(answered) && typeof answered.id === 'string' ? answered.id : undefined);
  }

  async steerTurn(turn: CodexTurn, input: TurnInput): Promise<boolean> {
    const parts = toUserInput(input);
    const delivered = this.turns.of(turn);
    if (!delivered) return false;
    await delivered.accepted;
    if (this.chassis.running !== turn || !delivered.id || delivered.abandoned) return false;
    try {
      await this.peer('send').request('turn/steer', {
        threadId: this.threadId,
        expectedTurnId: delivered.id,
        input: parts,
      });
      return true;
    } catch (error) {
      // The turn ended between our check and Codex's ("expected active turn id", 0.169.0): a new turn then.
      if (this.chassis.running !== turn || (ReinsError.isInstance(error) && error.code === 'protocol_error')) {
        return false;
      }
      throw error;
    }
  }

  async interruptTurn(turn: CodexTurn): Promise<void> {
    const delivered = this.turns.of(turn);
    if (!delivered) return;
    await delivered.accepted;
    // Not accepted: nothing to stop at Codex (the chassis ends the turn after its grace period).
    if (!delivered.id) return;
    // A turn the chassis gave up on (stalled) is still stopped at Codex; a finished one is left alone.
    if (this.chassis.running !== turn && !delivered.abandoned) return;
    // 0.169.0 and 0.171.0 answer {} at once, then send turn/completed {status: "interrupted"}; items
    // running at that moment never get item/completed (the event stream closes them).
    await this.peer('interrupt').request('turn/interrupt', { threadId: this.threadId, turnId: delivered.id });
  }

  /**
   * The chassis gave up on the turn (stalled, or no terminal within the interrupt grace). Codex may
   * still hold it as its active turn, and a turn/start during an active turn is taken as a steer
   * (0.169.0; on 0.171.0 a queued turn sent at once stalled with the abandoned one), so the next
   * queued turn waits until Codex ends this one (the chassis bounds the wait).
   */
  turnAbandoned(turn: CodexTurn): Promise<void> | undefined {
    return this.turns.abandon(turn);
  }

  // ---- Session ----------------------------------------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  /** `thread/compact/start` (0.171.0): Codex runs the compaction as a turn of its own (compact.ts). */
  async compact(): Promise<SendResult> {
    return this.chassis.compact(COMPACTION_PLAN);
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  async setModel(model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel', this.threadId);
    if (typeof model !== 'string' || !model.trim()) {
      throw new ReinsError('invalid_input', 'setModel needs a model id.', { harness: HARNESS, operation: 'setModel' });
    }
    this.pendingModel = model;
    return { applied: 'next_turn' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort', this.threadId);
    const parsed = EffortSchema.safeParse(effort);
    if (!parsed.success) {
      throw new ReinsError('invalid_input', `Unknown effort ${JSON.stringify(effort)}.`, {
        harness: HARNESS,
        operation: 'setEffort',
      });
    }
    this.pendingEffort = parsed.data;
    return { applied: 'next_turn' };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    this.approvals.respond(requestId, decision);
  }

  diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, HARNESS, turnId);
  }

  revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    const context = { chassis: this.chassis, turns: this.turns, threadId: this.threadId };
    return revertCodexTurn({ ...context, peer: () => this.peer('revert') }, turnId, options);
  }

  /**
   * `mcpServerStatus/list` for this thread (every page), with the startup states Codex pushed; a
   * server the spec passed that Codex does not list is reported with its last startup state.
   */
  async mcpStatus(): Promise<McpServerStatus[]> {
    this.chassis.assertOpen('mcpStatus', this.threadId);
    const listed: McpServerStatus[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const params: ListMcpServerStatusParams = {
        detail: 'toolsAndAuthOnly',
        ...(this.threadId ? { threadId: this.threadId } : {}),
        ...(cursor ? { cursor } : {}),
      };
      const response = await this.peer('mcpStatus')
        .request<ListMcpServerStatusResponse>('mcpServerStatus/list', params)
        .catch((error: unknown) => {
          throw unservedMcpStatus(error) ?? error;
        });
      listed.push(...this.mcp.fromList(response));
      cursor = typeof response?.nextCursor === 'string' && response.nextCursor ? response.nextCursor : null;
      if (!cursor) break;
    }
    return [...listed, ...this.mcp.missing(listed)];
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.chassis.markClosing('closed by request');
      this.approvals.declineAll('The session was closed.');
      await this.connection?.close();
      this.chassis.end('requested');
    })();
    return this.closing;
  }

  private peer(operation: string) {
    const connection = this.connection;
    if (!connection) throw this.chassis.closedError(operation, this.threadId);
    return connection.peer;
  }

  private onExit(): void {
    this.turns.exited();
    this.approvals.declineAll('The Codex process ended.');
    if (this.closing) return; // close() ends the chassis itself
    const error = (this.connection as CodexConnection).exitError().toInfo();
    this.chassis.end('process_exited', error);
  }

  // ---- frames -----------------------------------------------------------------------------------

  private onServerRequest(
    method: string,
    params: unknown,
    id: JsonRpcId,
    frame: Record<string, unknown>,
  ): Promise<unknown> {
    this.chassis.activity();
    return this.approvals.answer(method, params, id, frame);
  }

  private onStray(frame: unknown, at: number, reason: 'unparsable' | undefined): void {
    this.stream.emit({ type: 'passthrough', frame, ...(reason ? { reason } : {}) }, { native: nativeFrame(frame), at });
  }

  private warnOversize(bytes: number): void {
    this.stream.emit({
      type: 'notice',
      kind: 'warning',
      message: `Codex wrote a ${bytes}-byte line, over Reins' limit; it was skipped.`,
      data: { bytes },
    });
  }

  /** Every notification goes through the chassis guard: nothing Codex sends can throw out of here. */
  private onNotification(frame: NotificationFrame, at: number): void {
    if (this.stream.isClosed) return;
    this.chassis.translate(nativeFrame(frame), at, this.router.translateFrame);
    if (frame.method === 'error' && isRecord(frame.params) && frame.params.willRetry === true) this.onRetry();
  }

  /**
   * Codex retries its provider: the first time, ask whether it lacks the sign-in it needs (the check
   * `doctor` makes); if so the turn ends `auth_required` with the fix instead of Codex retrying for minutes.
   */
  private onRetry(): void {
    const turn = this.chassis.running;
    if (this.signInChecked || !turn || !this.connection) return;
    this.signInChecked = true;
    assertCodexSignedIn(this.connection.peer).catch((error: unknown) => {
      const info = ReinsError.from(error, 'auth_required', { harness: HARNESS, operation: 'send' }).toInfo();
      this.chassis.endTurnFailed(turn, info);
    });
  }
}

/** How long Codex may retry its provider without progress before the turn ends `provider_error`. */
const CODEX_RETRY_TIMEOUT_MS = 15_000;
