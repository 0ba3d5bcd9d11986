// A Claude Code session: the shared chassis (turns, queue, guards, watchdog, structured output) plus
// what is Claude's own — one long-lived `query()` (query.ts) fed one message per turn, which `result`
// ends which turn, and background work (docs/architecture/contract.md, "Events").
//
// Claude has no mid-turn steer: a message sent while a turn runs waits in the chassis queue and is
// written once the running turn's `result` arrived (Claude Code would otherwise fold it into the running
// turn). Settings the CLI takes only at launch (effort, output schema) are applied by restarting the
// query on the same conversation (drain, close, resume).
//
// Which turn a frame belongs to (`result` frames carry no turn id):
// - A turn Reins ended itself still owes its `result`, which ends nothing (turns.ts).
// - A main-thread frame while no turn runs is a turn Claude Code started by itself (2.1.332: to answer
//   a background task's notification): it becomes its own turn (chassis.beginHarnessTurn).
// - 2.1.332: a `result` with `queued_turn_count > 0` answers a turn the CLI ran before the message
//   Reins wrote (still queued in the CLI): the running turn goes on.
// - Background subagents outlive their turn: their items stay open past its end and complete when the
//   task does; what they do after it carries turnId null (protocols/stream-json/tasks.ts).
import { randomUUID } from 'node:crypto';
import {
  assertValidSchema,
  type Effort,
  type EmitMeta,
  type ErrorInfo,
  isRecord,
  type JsonSchema,
  type McpServerStatus,
  type NativeFrame,
  type PayloadOf,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionEventStream,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import {
  abandonBackgroundWork,
  type Emission,
  liveBackgroundTasks,
  openBackgroundItems,
  resetTurnState,
  takeEndedTasks,
  turnEndedForTasks,
} from '../protocols/stream-json/index.js';
import { type ChassisTurn, SessionChassis, type TurnHost } from '../runtime/chassis/index.js';
import { ClaudeApprovals } from './approvals.js';
import { ClaudeMcpServers, fromInitFrame, fromSdkStatus, settleMcpServers } from './mcp.js';
import { type ClaudeEffort, ClaudeQuery, claudeEffort, HARNESS, type LaunchContext, userMessage } from './query.js';
import { CLAUDE_SOURCE, createClaudeTranslation, translateFrame } from './translate.js';
import { inMainTurn, methodOf, OwedResults, startsMainTurn } from './turns.js';
import type { SDKMessage, SDKUserMessage } from './wire.js';

/** A sent turn's message for the CLI (made at send time); a turn Claude Code started itself has none. */
type Plan = SDKUserMessage | undefined;

function gone(): ReinsError {
  return new ReinsError('process_exited', 'The Claude Code process of this session is gone; open a new session.', {
    harness: HARNESS,
  });
}

export class ClaudeCodeSession implements Session, TurnHost<Plan> {
  readonly id = `cc_${randomUUID()}`;
  readonly harness = HARNESS;
  private readonly chassis: SessionChassis<Plan>;
  private readonly translation = createClaudeTranslation();
  private readonly approvals: ClaudeApprovals;
  private readonly context: LaunchContext;
  private readonly requestTimeoutMs: number;
  private query: ClaudeQuery | undefined;
  private native: string;
  /** True once the CLI has a transcript to resume from (a resumed session, or after a turn). */
  private persisted: boolean;
  private model: string | undefined;
  private effort: ClaudeEffort | undefined;
  /** createSession returned: a `result` with no turn is no longer a launch failure. */
  private opened = false;
  /** The failure a `result` frame reported before the session opened (e.g. an unknown --resume id). */
  private earlyFailure: ErrorInfo | undefined;
  /** Results the CLI still owes for turns Reins ended itself (turns.ts). */
  private readonly owed = new OwedResults();
  private readonly mcp: ClaudeMcpServers;

  constructor(context: Omit<LaunchContext, 'canUseTool'>) {
    const { spec, options } = context;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.chassis = new SessionChassis<Plan>(this, {
      harness: HARNESS,
      displayName: 'Claude Code',
      sessionId: this.id,
      structuredOutput: 'native',
      spec,
      ...(options.interruptGraceMs ? { interruptGraceMs: options.interruptGraceMs } : {}),
    });
    this.approvals = new ClaudeApprovals({
      stream: this.chassis.stream,
      holdStallWatchdog: () => this.chassis.holdStallWatchdog(),
      turnRunning: () => this.chassis.running !== undefined,
      declined: (toolUseId) => this.translation.declined.add(toolUseId),
      timeoutMs: options.permissionTimeoutMs ?? 600_000,
    });
    this.context = { ...context, canUseTool: spec.posture === 'ask' ? this.approvals.canUseTool : undefined };
    this.native = spec.resume?.nativeSessionId ?? randomUUID();
    this.persisted = spec.resume !== undefined;
    this.model = spec.model;
    this.effort = spec.effort ? claudeEffort(spec.effort) : undefined;
    this.mcp = new ClaudeMcpServers((spec.mcpServers ?? []).map((server) => server.name));
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  /**
   * Background tasks Claude Code is running right now (2.1.332 background subagents; always 0 on
   * 2.1.197). While it is above 0 the session is busy even with no turn running: its status is `running`.
   */
  get liveBackgroundTasks(): number {
    return this.chassis.isClosed ? 0 : liveBackgroundTasks(this.translation.tasks);
  }

  private get stream(): SessionEventStream {
    return this.chassis.stream;
  }

  /** Starts the first query and waits until the CLI answered `initialize`. */
  async open(): Promise<void> {
    const { spec, binary } = this.context;
    this.stream.emit({
      type: 'session.started',
      cwd: spec.cwd,
      binaryPath: binary.path,
      ...(binary.version ? { harnessVersion: binary.version } : {}),
      ...(spec.model ? { model: spec.model } : {}),
    });
    // The id is fixed up front (--session-id) for a new conversation; a resume keeps its own.
    this.translation.facts.nativeSessionId = this.native;
    this.stream.emit({
      type: 'session.updated',
      nativeSessionId: this.native,
      ...(this.effort ? { effort: this.effort } : {}),
    });
    const query = this.launch(spec.outputSchema);
    try {
      await query.initialized(this.requestTimeoutMs);
    } catch (cause) {
      const exit = await query.describeExit();
      await this.retire(query);
      const early = this.earlyFailure;
      this.chassis.end('error', early);
      // 2.1.197 checks --resume before answering initialize: it prints a result frame and stderr
      // "No conversation found with session ID: ..." and exits 1.
      if (early?.code === 'resume_failed' || (spec.resume && /No conversation found/i.test(exit ?? ''))) {
        throw new ReinsError(
          'resume_failed',
          early?.message ?? `Claude Code has no conversation ${spec.resume?.nativeSessionId} to resume in ${spec.cwd}.`,
          { harness: HARNESS, operation: 'resume', data: { nativeSessionId: spec.resume?.nativeSessionId }, cause },
        );
      }
      throw new ReinsError(
        ReinsError.isInstance(cause) && cause.code === 'timeout' ? 'timeout' : 'harness_unhealthy',
        `Claude Code did not start: ${exit ?? (cause instanceof Error ? cause.message : String(cause))}`,
        { harness: HARNESS, operation: 'initialize', cause },
      );
    }
    this.opened = true;
    void this.watchMcp(query);
  }

  private launch(schema: JsonSchema | undefined): ClaudeQuery {
    const query = new ClaudeQuery(
      this.context,
      {
        model: this.model,
        effort: this.effort,
        schema,
        conversation: this.persisted ? { resume: this.native } : { sessionId: this.native },
      },
      {
        onMessage: (message) => this.onMessage(message),
        onGarbage: (line) => {
          this.chassis.activity();
          this.stream.emit(
            { type: 'passthrough', frame: line, reason: 'unparsable' },
            { native: { source: CLAUDE_SOURCE, frame: line } },
          );
        },
        onOversizeLine: (bytes) =>
          this.stream.emit({
            type: 'notice',
            kind: 'warning',
            message: `Claude Code wrote a ${bytes}-byte line, over Reins' limit; it was skipped.`,
            data: { bytes },
          }),
        onEnded: (ended, failure) => void this.onQueryEnded(ended, failure),
      },
    );
    this.query = query;
    // A new process has no background tasks (the level signal restarts empty).
    this.translation.tasks.live = undefined;
    return query;
  }

  /** The CLI went away on its own: the session cannot go on. */
  private async onQueryEnded(query: ClaudeQuery, failure: unknown): Promise<void> {
    if (this.query !== query || this.stream.isClosed) return;
    const detail =
      (await query.describeExit()) ?? (failure instanceof Error ? failure.message : 'the Agent SDK query ended');
    const status = query.exitStatus;
    const error: ErrorInfo = {
      code: 'process_exited',
      message: `Claude Code ended unexpectedly: ${detail}`,
      ...(status ? { data: { ...status } } : {}),
    };
    this.approvals.denyAll('harness');
    await this.retire(query);
    this.chassis.end('process_exited', error);
  }

  private async retire(query: ClaudeQuery): Promise<void> {
    if (this.query === query) this.query = undefined;
    await query.retire();
    // That process owes nothing any more.
    this.owed.settleAll();
  }

  // ---- native frames ---------------------------------------------------------------------------

  private onMessage(message: SDKMessage): void {
    const at = Date.now();
    const frame: unknown = message;
    const method = methodOf(frame);
    const native: NativeFrame = { source: CLAUDE_SOURCE, ...(method ? { method } : {}), frame };
    try {
      this.route(frame, method, native, at);
    } catch {
      // Nothing one frame does may end the session (docs/architecture/contract.md, principle 8).
      this.stream.emit({ type: 'passthrough', frame, reason: 'untranslatable' }, { native, at });
    }
  }

  private route(frame: unknown, method: string | undefined, native: NativeFrame, at: number): void {
    // Claude Code starts every turn with system/init: an abandoned turn whose init came already is over,
    // and what the translation held for it (its tools, the interrupt flag) is forgotten too.
    if (method === 'system/init' && this.owed.onInit(this.chassis.running !== undefined)) {
      resetTurnState(this.translation);
    }
    // system/init names each MCP server with its state but not why one failed: ask for the reason.
    if (method === 'system/init' && this.mcp.failures(fromInitFrame(frame), { dryRun: true }).length > 0) {
      const query = this.query;
      if (query) void this.checkMcp(query);
    }
    // Until the CLI starts another turn, main-thread frames belong to a turn Reins already ended.
    const stale = this.owed.pending && inMainTurn(frame, method);
    if (!stale && this.opened && !this.chassis.running && startsMainTurn(frame, method)) {
      this.beginHarnessTurn(native, at, method);
    }
    const emissions = this.chassis.translate(native, at, () => translateFrame(this.translation, frame));
    const base: EmitMeta = { native, at };
    let ended = false;
    for (const emission of emissions) {
      if (emission.payload.type === 'turn.completed') ended = true;
      this.emitOne(emission, base, stale);
    }
    if (isRecord(frame) && frame.type === 'result' && !ended) this.unreadableResult(base, stale);
  }

  private emitOne(emission: Emission, base: EmitMeta, stale: boolean): void {
    const payload = emission.payload;
    const meta: EmitMeta = {
      ...base,
      ...(emission.parentItemId !== undefined ? { parentItemId: emission.parentItemId } : {}),
      ...(emission.background || stale ? { background: true } : {}),
    };
    switch (payload.type) {
      case 'turn.completed':
        this.onResult(payload, meta, stale, base.native?.frame);
        return;
      case 'session.status':
        // The background-task level: the session's status follows the turn and the live tasks.
        this.emitStatus(meta);
        return;
      case 'session.updated':
        if (payload.nativeSessionId) this.native = payload.nativeSessionId;
        break;
      default:
        break;
    }
    this.stream.emit(payload, meta);
  }

  private onResult(payload: PayloadOf<'turn.completed'>, meta: EmitMeta, stale: boolean, frame: unknown): void {
    if (stale) {
      const owed = this.owed.settleOne();
      this.stream.emit(
        {
          type: 'notice',
          kind: 'info',
          message: `Claude Code finished ${owed ?? 'a turn'} after Reins had ended it; this result ends nothing.`,
          data: { turnId: owed, outcome: payload.outcome.status },
        },
        meta,
      );
      return;
    }
    const turn = this.chassis.running;
    if (!turn) {
      // Before the session opened this is the launch failing (2.1.197: an unknown --resume id).
      if (payload.outcome.status === 'failed') {
        if (!this.opened) this.earlyFailure = payload.outcome.error;
        this.stream.emit({ type: 'error', ...payload.outcome.error, fatal: !this.opened }, meta);
      } else {
        this.stream.emit({ type: 'notice', kind: 'info', message: 'Claude Code ended work outside any turn.' }, meta);
      }
      return;
    }
    const queued = isRecord(frame) && typeof frame.queued_turn_count === 'number' ? frame.queued_turn_count : 0;
    if (queued > 0) {
      this.stream.emit(
        {
          type: 'notice',
          kind: 'info',
          message: 'Claude Code finished work it ran before this turn; the turn goes on.',
          data: { queuedTurnCount: queued },
        },
        meta,
      );
      return;
    }
    this.finish(turn, payload, meta);
  }

  /** A `result` whose translation gave no terminal: it still ends the CLI's turn, so it ends Reins' too. */
  private unreadableResult(meta: EmitMeta, stale: boolean): void {
    const error: ErrorInfo = {
      code: 'protocol_error',
      message: 'Claude Code ended the turn with a result Reins could not read.',
    };
    this.onResult({ type: 'turn.completed', outcome: { status: 'failed', error } }, meta, stale, undefined);
  }

  private finish(turn: ChassisTurn<Plan>, payload: PayloadOf<'turn.completed'>, meta: EmitMeta): void {
    // Background work goes on past this turn: its items stay open.
    for (const id of openBackgroundItems(this.translation)) this.stream.keepAfterTurn(id);
    const { type: _type, ...completion } = payload;
    const raw = completion.structuredOutput;
    this.chassis.complete(turn, completion, meta, { result: raw === undefined ? undefined : { value: raw } });
    if (this.context.spec.ephemeral !== true) this.persisted = true;
    this.emitStatus({});
  }

  private emitStatus(meta: EmitMeta): void {
    const busy = this.chassis.running !== undefined || liveBackgroundTasks(this.translation.tasks) > 0;
    this.stream.emit({ type: 'session.status', status: busy ? 'running' : 'idle' }, meta);
  }

  private beginHarnessTurn(native: NativeFrame, at: number, method: string | undefined): void {
    const ended = takeEndedTasks(this.translation.tasks);
    const text = ended.length > 0 ? ended.join('\n') : 'Claude Code started a turn by itself.';
    const turn = this.chassis.beginHarnessTurn({ text }, { origin: 'notification', meta: { native, at } });
    if (!turn) return;
    this.owed.began(method === 'system/init');
    this.stream.emit({ type: 'session.status', status: 'running' });
  }

  // ---- MCP servers -----------------------------------------------------------------------------

  /** Asks until every server the spec passed attached or failed (mcp.ts), warning about each failure. */
  private watchMcp(query: ClaudeQuery): Promise<void> {
    return settleMcpServers(this.mcp, {
      ask: () => this.checkMcp(query),
      current: () => this.query === query && !this.chassis.isClosed,
    });
  }

  /** One status query; a warning notice for each requested server newly seen failed. */
  private async checkMcp(query: ClaudeQuery): Promise<McpServerStatus[] | undefined> {
    const statuses = await query
      .mcpServerStatus(this.requestTimeoutMs)
      .then(fromSdkStatus)
      .catch(() => undefined);
    if (!statuses || this.query !== query || this.stream.isClosed) return statuses;
    for (const { message, ...data } of this.mcp.failures(statuses)) {
      this.stream.emit({ type: 'notice', kind: 'warning', message, data });
    }
    return statuses;
  }

  // ---- TurnHost: how a turn reaches Claude Code -----------------------------------------------

  async planTurn(input: TurnInput, options: SendOptions): Promise<Plan> {
    if (options.outputSchema) assertValidSchema(options.outputSchema);
    if (!this.query) throw gone();
    return userMessage(input);
  }

  async beginTurn(turn: ChassisTurn<Plan>): Promise<void> {
    // Notes on ended background tasks belong to a turn Claude Code starts itself, not to this one.
    takeEndedTasks(this.translation.tasks);
    this.owed.began(false);
    await this.ensureQuery(turn.outputSchema);
    if (!turn.plan || !this.query?.push(turn.plan)) throw gone();
    this.stream.emit({ type: 'session.status', status: 'running' });
  }

  async interruptTurn(): Promise<void> {
    const query = this.query;
    if (!query) return;
    this.translation.interruptRequested = true;
    this.approvals.denyAll('harness');
    const receipt = await query.interrupt(this.requestTimeoutMs);
    // 2.1.332 answers with the messages that survive the interrupt (Reins writes one at a time, so
    // these are the CLI's own): they will run as turns Claude Code starts itself.
    const still = isRecord(receipt) && Array.isArray(receipt.still_queued) ? receipt.still_queued : [];
    if (still.length > 0) {
      this.stream.emit({
        type: 'notice',
        kind: 'info',
        message: `Claude Code keeps ${still.length} queued message(s) past the interrupt; they run as turns it starts itself.`,
        data: { stillQueued: still },
      });
    }
  }

  turnAbandoned(turn: ChassisTurn<Plan>): Promise<void> {
    for (const id of openBackgroundItems(this.translation)) this.stream.keepAfterTurn(id);
    turnEndedForTasks(this.translation.tasks);
    return this.owed.abandoned(turn.turnId);
  }

  /** The query fits the turn's launch-time settings, else it is restarted on the same conversation. */
  private async ensureQuery(schema: JsonSchema | undefined): Promise<void> {
    const query = this.query;
    if (!query) throw gone();
    const sameSchema = JSON.stringify(query.settings.schema) === JSON.stringify(schema);
    if (sameSchema && query.settings.effort === this.effort) return;
    await this.restart(schema);
  }

  /** No turn runs (drain is the caller's); closes the query and resumes the same conversation. */
  private async restart(schema: JsonSchema | undefined): Promise<void> {
    if (this.context.spec.ephemeral && this.persisted) {
      throw new ReinsError(
        'unsupported_capability',
        'Claude Code takes effort and output schema only at launch, and an ephemeral session cannot be resumed ' +
          'after its first turn to change them: open a new session with the settings you need.',
        { harness: HARNESS, operation: 'restart' },
      );
    }
    const old = this.query;
    if (old) {
      this.stopBackgroundWork();
      await this.retire(old);
    }
    if (!this.persisted) {
      // Nothing was said yet: a fresh id avoids "session id already in use" for an unwritten transcript.
      this.native = randomUUID();
      this.translation.facts.nativeSessionId = this.native;
      this.stream.emit({ type: 'session.updated', nativeSessionId: this.native });
    }
    const query = this.launch(schema);
    await query.initialized(this.requestTimeoutMs);
    // A new process starts its MCP servers again.
    void this.watchMcp(query);
  }

  /** A restart ends the process and its background tasks with it: Reins stops them, and says so. */
  private stopBackgroundWork(): void {
    const items = abandonBackgroundWork(this.translation);
    if (items.length === 0) return;
    this.stream.emit({
      type: 'notice',
      kind: 'warning',
      message: `Reins restarted Claude Code to apply a launch-time setting; ${items.length} background item(s) stopped with it.`,
    });
    for (const item of items)
      this.stream.emit({ type: 'item.completed', item: { ...item, status: 'cancelled' } }, { background: true });
  }

  // ---- Session ---------------------------------------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  async setModel(model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel', this.native);
    if (typeof model !== 'string' || model.trim() === '') {
      throw new ReinsError('invalid_input', 'setModel needs a model name.', {
        harness: HARNESS,
        operation: 'setModel',
      });
    }
    const query = this.query;
    if (!query) throw gone();
    // 2.1.197 accepts any name here; a model the provider does not know fails the next turn with
    // model_not_found, which the translation maps to unsupported_model.
    await query.setModel(model, this.requestTimeoutMs);
    this.model = model;
    this.stream.emit({ type: 'session.updated', model });
    return { applied: 'live' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort', this.native);
    const next = claudeEffort(effort);
    this.effort = next;
    this.stream.emit({ type: 'session.updated', effort: next });
    // Idle: restart now. Busy: the next turn restarts first (beginTurn). Background work still running
    // is left to finish: the restart waits for the next turn.
    const query = this.query;
    const idle = !this.chassis.running && this.chassis.queued.length === 0;
    if (idle && query && query.settings.effort !== next && this.liveBackgroundTasks === 0) {
      await this.restart(query.settings.schema);
    }
    return { applied: 'restart' };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    this.approvals.respond(requestId, decision);
  }

  /** Claude Code's own report of this session's MCP servers (the Agent SDK's `mcpServerStatus()`). */
  async mcpStatus(): Promise<McpServerStatus[]> {
    this.chassis.assertOpen('mcpStatus', this.native);
    const query = this.query;
    if (!query) throw gone();
    return fromSdkStatus(await query.mcpServerStatus(this.requestTimeoutMs));
  }

  async close(): Promise<void> {
    if (this.chassis.isClosed) return;
    this.chassis.markClosing('closed by request');
    this.approvals.denyAll('harness');
    const query = this.query;
    if (query) await this.retire(query);
    this.chassis.end('requested');
  }
}
