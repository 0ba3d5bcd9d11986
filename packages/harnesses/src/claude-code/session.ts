// A Claude Code session: the shared chassis (turns, queue, guards, watchdog, structured output) plus
// what is Claude's own — one long-lived `query()` (query.ts) fed one message per turn, which `result`
// ends which turn, and background work (docs/architecture/contract.md, "Events").
//
// Claude has no mid-turn steer: a message sent while a turn runs waits in the chassis queue and is
// written once the running turn's `result` arrived (Claude Code would otherwise fold it into the running
// turn). Settings the CLI takes only at launch (effort, output schema) are applied by restarting the
// query on the same conversation (drain, close, resume).
//
// Elsewhere: which turn a native frame belongs to and what it emits (frames.ts), `session.status`
// (status.ts: Claude Code's own state where it reports one, 2.1.332, else inferred), which
// conversation a launch opens (new, resumed, forked) and its id (conversation.ts), the MCP watch
// (mcp-watch.ts), approvals (approvals.ts), where a revert takes the conversation (rewind-points.ts).
import { randomUUID } from 'node:crypto';
import {
  assertValidSchema,
  type Effort,
  type ErrorInfo,
  isRecord,
  type JsonSchema,
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
  type SessionEventStream,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import {
  abandonBackgroundWork,
  liveBackgroundTasks,
  openBackgroundItems,
  takeEndedTasks,
  turnEndedForTasks,
} from '../protocols/stream-json/index.js';
import { type ChassisTurn, COMPACT_INPUT, SessionChassis, type TurnHost } from '../runtime/chassis/index.js';
import { sessionDiff, sessionRevert } from '../runtime/checkpoints/index.js';
import { ClaudeApprovals } from './approvals.js';
import { ClaudeConversation } from './conversation.js';
import { ClaudeFrames, type Plan } from './frames.js';
import { ClaudeMcpWatch } from './mcp-watch.js';
import {
  type ClaudeEffort,
  ClaudeQuery,
  claudeEffort,
  HARNESS,
  type LaunchContext,
  launchFailure,
  userMessage,
} from './query.js';
import { RewindPoints } from './rewind-points.js';
import { ClaudeStatus } from './status.js';
import { CLAUDE_SOURCE, createClaudeTranslation } from './translate.js';
import { OwedResults } from './turns.js';

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
  private readonly conversation: ClaudeConversation;
  private readonly status: ClaudeStatus;
  private model: string | undefined;
  private effort: ClaudeEffort | undefined;
  /** Results the CLI still owes for turns Reins ended itself (turns.ts). */
  private readonly owed = new OwedResults();
  private readonly mcp: ClaudeMcpWatch;
  private readonly frames: ClaudeFrames;
  private readonly rewind: RewindPoints;

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
      inferStatus: (status) => this.status.inferred(status),
      timeoutMs: options.permissionTimeoutMs ?? 600_000,
    });
    this.context = { ...context, canUseTool: spec.posture === 'ask' ? this.approvals.canUseTool : undefined };
    this.conversation = new ClaudeConversation(spec.resume);
    // A warm start runs under the id its spare was started with (warm.ts): the native id from the start.
    if (context.warm) this.conversation.adopt(context.warm.sessionId);
    // A resumed conversation's history was written by another process: Reins knows no message in it.
    this.rewind = new RewindPoints(spec.resume === undefined || spec.resume.fork === true);
    this.status = new ClaudeStatus((status, meta) => this.stream.emit({ type: 'session.status', status }, meta));
    this.model = spec.model;
    this.effort = spec.effort ? claudeEffort(spec.effort) : undefined;
    this.mcp = new ClaudeMcpWatch(
      (spec.mcpServers ?? []).map((server) => server.name),
      {
        current: () => this.query,
        closed: () => this.chassis.isClosed,
        warn: (message, data) => this.stream.emit({ type: 'notice', kind: 'warning', message, data }),
        timeoutMs: this.requestTimeoutMs,
      },
    );
    this.frames = new ClaudeFrames({
      chassis: this.chassis,
      translation: this.translation,
      owed: this.owed,
      status: this.status,
      mcp: this.mcp,
      conversation: this.conversation,
      ephemeral: spec.ephemeral === true,
    });
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  get nativeSessionId(): string | undefined {
    return this.conversation.id;
  }

  private get native(): string {
    return this.conversation.id;
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
    // The id is fixed up front (--session-id) for a new conversation and a fork; a resume keeps its own.
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
      this.chassis.end('error', this.frames.earlyFailure);
      throw launchFailure(spec, { early: this.frames.earlyFailure, exit, cause });
    }
    this.frames.opened = true;
    void this.mcp.launched(query);
  }

  private launch(schema: JsonSchema | undefined): ClaudeQuery {
    const query = new ClaudeQuery(
      this.context,
      {
        model: this.model,
        effort: this.effort,
        schema,
        conversation: this.conversation.launch(),
      },
      {
        onMessage: (message) => {
          this.rewind.observe(message);
          this.frames.onMessage(message);
        },
        onGarbage: (shown) => {
          this.stream.emit(
            { type: 'passthrough', frame: shown, reason: 'unparsable' },
            { native: { source: CLAUDE_SOURCE, frame: shown } },
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
    this.rewind.turnBegan(turn.turnId, turn.outputSchema !== undefined);
    await this.ensureQuery(turn.outputSchema);
    if (!turn.plan || !this.query?.push(turn.plan)) throw gone();
    this.status.inferred('running');
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
    if (this.context.spec.ephemeral && this.conversation.isWritten) {
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
    if (this.conversation.freshIdIfUnwritten()) {
      // Nothing was said yet: a fresh id avoids "session id already in use" for an unwritten transcript.
      this.translation.facts.nativeSessionId = this.native;
      this.stream.emit({ type: 'session.updated', nativeSessionId: this.native });
    }
    const query = this.launch(schema);
    await query.initialized(this.requestTimeoutMs);
    // A new process starts its MCP servers again.
    void this.mcp.launched(query);
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

  /** Claude Code's own `/compact` slash command as the turn's message; its compact_boundary is the item. */
  async compact(): Promise<SendResult> {
    this.chassis.assertOpen('compact', this.native);
    if (!this.query) throw gone();
    return this.chassis.compact(await userMessage({ text: COMPACT_INPUT }));
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
    return this.mcp.status(query);
  }

  diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, HARNESS, turnId);
  }

  /** The files go back, and the conversation to the message before the turn where Reins knows it. */
  revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return sessionRevert(this.chassis, HARNESS, turnId, options, (turnIds) => this.rewindConversation(turnIds));
  }

  /**
   * Relaunches the CLI on a new conversation as it was before `turnIds[0]` (conversation.ts): a fork kept up
   * to the message before the turn, or for a first turn a new conversation (the spec's fork again). Either
   * way `forked`: a new native id (session.updated), the old transcript left whole. `unchanged` where Reins
   * knows no such message (a resumed session's earlier turns, after a structured turn), for an ephemeral
   * session (no transcript to fork), or while background work runs.
   */
  private async rewindConversation(turnIds: string[]): Promise<RevertResult['conversation']> {
    const point = turnIds[0] === undefined ? undefined : this.rewind.pointBefore(turnIds[0]);
    const query = this.query;
    if (!point || !query || this.context.spec.ephemeral || this.liveBackgroundTasks > 0) return 'unchanged';
    if (!this.conversation.rewind(point)) return 'unchanged';
    this.rewind.rewound(turnIds, point);
    await this.restart(query.settings.schema);
    return 'forked';
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
