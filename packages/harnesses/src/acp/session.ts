// One Reins session over one ACP session, on the session chassis (docs/architecture/contract.md,
// "Turn rules"): the chassis owns the turn queue, send guards, the `user_message` item of every
// turn, interrupt semantics, the stall watchdog, emulated structured output and the closed-session
// error. What is ACP's own is composed here: the native session opened, loaded, resumed, forked and
// closed (native-session.ts), a turn as one `session/prompt` (prompt-turn.ts; prompt blocks and answer
// rules in prompt.ts), settings (settings.ts), permission requests (approvals.ts), the client half of
// fs (client-fs.ts), and the agent's traffic routed in. The AcpConnection (one agent process) may be
// shared with other sessions.
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  Effort,
  EmitMeta,
  EventPayload,
  HarnessId,
  NativeFrame,
  PassthroughReason,
  PermissionDecision,
  ReinsError,
  ReinsEvent,
  RevertOptions,
  RevertResult,
  SendOptions,
  SendResult,
  Session,
  SessionDiff,
  SessionSpec,
  SettingChange,
  TurnInput,
} from '@reins/core';
import {
  type ChassisTurn,
  DEFAULT_INTERRUPT_GRACE_MS,
  SessionChassis,
  type TurnHost,
} from '../runtime/chassis/index.js';
import { filesOnly, sessionDiff, sessionRevert } from '../runtime/checkpoints/index.js';
import { AcpApprovals } from './approvals.js';
import { ConfinedFs } from './client-fs.js';
import type { AcpConnection, SessionSink } from './connection.js';
import { closeNativeSession, createNativeSession, resumeNativeSession } from './native-session.js';
import type { AcpQuirks } from './preset.js';
import { PromptTurns } from './prompt-turn.js';
import { AcpSettings } from './settings.js';
import {
  createTranslateState,
  finishReplay,
  type TranslateState,
  translatePermission,
  translateUpdate,
} from './translate.js';
import type { SessionSetupResponse, SessionUpdate } from './wire.js';

// Kept exported from here: tests and older imports read them from the session module.
export { classifyPromptError, quotaTokens } from './prompt.js';
export { optionValues } from './settings.js';

export interface AcpSessionContext {
  harness: HarnessId;
  /** For sentences: 'Gemini CLI'. */
  displayName: string;
  /** The launch line, for messages about the process: 'gemini --acp'. */
  label: string;
  connection: AcpConnection;
  spec: SessionSpec;
  quirks: AcpQuirks;
  requestTimeoutMs: number;
  /** The agent's own `_meta` for session/new, load and resume (spec fields ACP has no field for). */
  sessionMeta?: Record<string, unknown>;
  binaryPath?: string;
  harnessVersion?: string;
  env: Record<string, string | undefined>;
  /** Gives the shared process back (closes it when this was the last session). */
  release: () => Promise<void>;
}

/**
 * Extension traffic an agent sends that Reins knows and deliberately passes through (answered
 * -32601 when it is a request): seen from Qwen Code 0.24.4. Any other extension method is unknown.
 */
const KNOWN_EXTENSIONS = new Set([
  'craft/drainMidTurnQueue',
  'qwen/notify/session/model-update',
  'qwen/notify/session/mode-update',
]);

let sessionCounter = 0;

export class AcpSession implements Session, TurnHost {
  readonly id: string;
  readonly harness: HarnessId;
  private native: string | undefined;
  private readonly chassis: SessionChassis;
  private readonly state: TranslateState;
  private readonly fs: ConfinedFs;
  private readonly settings: AcpSettings;
  private readonly approvals: AcpApprovals;
  private readonly sink: SessionSink;
  private readonly turns: PromptTurns;
  private closing: Promise<void> | undefined;

  constructor(private readonly context: AcpSessionContext) {
    this.harness = context.harness;
    this.id = `${context.harness}-${process.pid}-${Date.now().toString(36)}-${++sessionCounter}`;
    this.state = createTranslateState(context.quirks.translate);
    const interruptGraceMs = Math.min(context.requestTimeoutMs, DEFAULT_INTERRUPT_GRACE_MS);
    const { spec } = context;
    this.chassis = new SessionChassis(this, {
      harness: context.harness,
      displayName: context.displayName,
      sessionId: this.id,
      // ACP has no structured output: the chassis asks for JSON and validates the last answer.
      structuredOutput: 'emulated',
      interruptGraceMs,
      spec,
    });
    this.fs = new ConfinedFs(spec.cwd, { missingFileReadsEmpty: context.quirks.missingFileReadsEmpty ?? false });
    const hide = context.quirks.hideModel;
    this.settings = new AcpSettings({
      harness: context.harness,
      label: context.label,
      request: (method, params) => this.connection.request(method, params),
      nativeSessionId: () => this.native,
      current: this.state.current,
      emit: (payload) => this.emit(payload),
      ...(hide ? { hideModel: (model: string) => hide(model, context.env) } : {}),
    });
    this.approvals = new AcpApprovals({
      harness: context.harness,
      posture: spec.posture ?? 'bypass',
      emit: (payload, native) => this.emit(payload, native ? { native } : {}),
      translate: (native, requestId, toolCall, options) =>
        this.chassis.translate(native, Date.now(), () => [
          ...translatePermission(this.state, requestId, toolCall, options).payloads,
        ]),
      cancelling: () => this.chassis.running !== undefined && this.turns.cancelling(this.chassis.running),
      inTurn: () => this.chassis.running !== undefined,
      holdStallWatchdog: () => this.chassis.holdStallWatchdog(),
    });
    this.sink = {
      update: (update, frame, at) => this.onUpdate(update, frame, at),
      request: (method, params, signal) => this.onRequest(method, params, signal),
      passthrough: (frame, method, at, reason) => this.onPassthrough(frame, method, at, reason),
      warn: (message, data) => this.emit({ type: 'notice', kind: 'warning', message, ...(data ? { data } : {}) }),
      ended: (error) => this.onEnded(error),
    };
    this.turns = new PromptTurns({
      harness: context.harness,
      label: context.label,
      spec,
      quirks: context.quirks,
      connection: context.connection,
      native: context,
      nativeSessionId: () => this.native,
      chassis: this.chassis,
      state: this.state,
      settings: this.settings,
      approvals: this.approvals,
      interruptGraceMs,
      emit: (payload, meta) => this.emit(payload, meta),
      emitAll: (payloads, meta) => this.emitAll(payloads, meta),
    });
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  /** The pid of the agent process this session runs on (undefined over an in-memory transport). */
  get processId(): number | undefined {
    const pid = (this.connection.process as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : undefined;
  }

  /** Frames of this session's agent process that no session could be named for (dropped; shared count). */
  get processDroppedFrames(): number {
    return this.connection.droppedFrames;
  }

  private get connection(): AcpConnection {
    return this.context.connection;
  }

  // ---- opening -----------------------------------------------------------------------------------

  /** Creates, loads or resumes the native session. */
  async open(): Promise<void> {
    const { spec } = this.context;
    this.emit({
      type: 'session.started',
      cwd: spec.cwd,
      ...(this.context.harnessVersion ? { harnessVersion: this.context.harnessVersion } : {}),
      ...(this.context.binaryPath ? { binaryPath: this.context.binaryPath } : {}),
      ...(spec.model ? { model: spec.model } : {}),
    });
    let setup: SessionSetupResponse;
    if (spec.resume && !spec.resume.fork) {
      const nativeId = spec.resume.nativeSessionId;
      setup = await resumeNativeSession(this.context, nativeId, {
        sink: this.sink,
        adopt: () => {
          this.native = nativeId;
        },
        replayed: () => this.emitAll(finishReplay(this.state)),
      });
    } else {
      const created = await createNativeSession(this.context, this.sink);
      this.native = created.nativeId;
      setup = created.setup;
    }
    this.settings.take(setup);
    const settings = this.settings.current();
    this.emit({ type: 'session.updated', nativeSessionId: this.native as string, ...settings });
    if (spec.model && settings.model !== spec.model) await this.settings.setModel(spec.model);
    if (spec.effort) await this.settings.setEffort(spec.effort);
    this.emit({ type: 'session.status', status: 'idle' });
  }

  // ---- events in (every frame's translation is guarded by the chassis) -----------------------

  private emit(payload: EventPayload, meta: EmitMeta = {}): void {
    if (this.chassis.stream.isClosed) return;
    this.chassis.stream.emit(payload, meta);
  }

  private emitAll(payloads: EventPayload[], meta: EmitMeta = {}): void {
    for (const payload of payloads) this.emit(payload, meta);
  }

  private onUpdate(update: SessionUpdate, frame: unknown, at: number): void {
    const native: NativeFrame = { source: 'acp', method: 'session/update', frame };
    const inTurn = this.chassis.running !== undefined;
    if (inTurn && update.sessionUpdate === 'user_message_chunk') {
      // The chassis gives every turn its user_message item; an agent echoing the prompt inside
      // the turn would make it twice (none of the tested agents does; load replays stay items).
      this.chassis.activity();
      this.emit({ type: 'passthrough', frame }, { native, at });
      return;
    }
    const payloads = this.chassis.translate(native, at, () => {
      this.settings.observe(update);
      return translateUpdate(this.state, update, { inTurn });
    });
    this.emitAll(payloads, { native, at });
  }

  private onPassthrough(frame: unknown, method: string | undefined, at: number, reason?: PassthroughReason): void {
    const why = reason ?? (method && !KNOWN_EXTENSIONS.has(method) ? 'unknown' : undefined);
    this.emit(
      { type: 'passthrough', frame, ...(why ? { reason: why } : {}) },
      { native: { source: 'acp', ...(method ? { method } : {}), frame }, at },
    );
  }

  private async onRequest(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    this.chassis.activity();
    switch (method) {
      case 'session/request_permission':
        return this.approvals.request(params, signal);
      case 'fs/read_text_file':
        return this.fs.read(params);
      case 'fs/write_text_file':
        return this.fs.write(params);
      default:
        // Extension requests (Qwen Code 0.24.4 sends craft/drainMidTurnQueue mid-turn): answered
        // with method-not-found at once so the agent goes on, and shown as passthrough.
        this.onPassthrough({ jsonrpc: '2.0', method, params }, method, Date.now());
        throw RequestError.methodNotFound(method);
    }
  }

  private onEnded(error: ReinsError): void {
    if (this.closing) return;
    this.chassis.end('process_exited', error.toInfo());
    void this.context.release().catch(() => {});
  }

  // ---- TurnHost: a turn is one session/prompt (prompt-turn.ts) -------------------------------

  beginTurn(turn: ChassisTurn): Promise<void> {
    return this.turns.begin(turn);
  }

  planTurn(input: TurnInput): undefined {
    return this.turns.plan(input);
  }

  interruptTurn(turn: ChassisTurn): Promise<void> {
    return this.turns.interrupt(turn);
  }

  turnAbandoned(turn: ChassisTurn, why: 'stalled' | 'interrupt_grace'): Promise<void> {
    return this.turns.abandoned(turn, why);
  }

  // ---- Session -----------------------------------------------------------------------------------

  async send(input: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    const result = await this.chassis.send(input, options);
    if (options?.mode === 'steer' && result.delivery === 'queued') {
      this.emit({
        type: 'notice',
        kind: 'info',
        message: `ACP has no steering: the input was queued and runs as turn ${result.turnId} after the current turn.`,
        data: { turnId: result.turnId, delivery: 'queued' },
      });
    }
    return result;
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  /** Models this session can switch to, as the agent listed them (minus the ones a quirk hides). */
  availableModels(): { id: string; displayName: string; isDefault: boolean }[] {
    return this.settings.availableModels();
  }

  async setModel(model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel', this.native);
    return this.settings.setModel(model);
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort', this.native);
    return this.settings.setEffort(effort);
  }

  /** Selects one of the agent's modes (config option of category mode, else session/set_mode). */
  async setMode(modeId: string): Promise<SettingChange> {
    this.chassis.assertOpen('setMode', this.native);
    return this.settings.setMode(modeId);
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    this.chassis.assertOpen('respondToPermission', this.native);
    this.approvals.respond(requestId, decision);
  }

  async diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, this.harness, turnId);
  }

  /** The files go back; the conversation stays (no ACP method drops a turn yet: contract.md, "Checkpoints"). */
  async revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return sessionRevert(this.chassis, this.harness, turnId, options, filesOnly);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.chassis.markClosing('closed by request');
    this.approvals.cancelAll(false);
    const connection = this.connection;
    const sessionId = this.native;
    if (sessionId && !connection.ended) {
      await closeNativeSession(this.context, sessionId, {
        running: this.chassis.running !== undefined,
        warn: (message) => this.emit({ type: 'notice', kind: 'warning', message }),
      });
    }
    this.chassis.end('requested');
    await this.context.release().catch(() => {});
  }
}
