// The Codex adapter: one long-lived `codex app-server` process per session, spoken to over
// newline-delimited JSON-RPC (no "jsonrpc" member on Codex's side). This module owns the session
// state machine (start/resume, turns, steer, queue, interrupt, settings, approvals, close) and the
// Harness object (discovery, health, catalog, session list, history); translate.ts owns the mapping
// of native frames to events.
import { randomUUID } from 'node:crypto';
import {
  acceptStructuredOutput,
  type CapabilityMatrix,
  type Discovery,
  type Effort,
  type Harness,
  type Health,
  type ImplementedCapabilities,
  type Item,
  type JsonSchema,
  type ModelInfo,
  type PermissionDecision,
  type PermissionOption,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  SessionSpecSchema,
  type SessionSummary,
  type SettingChange,
  type StrictSchemaPlan,
  type ToolInfo,
  type TurnInput,
  TurnInputSchema,
  toCodexStrictSchema,
  type Usage,
} from '@reins/core';
import { HarnessProcess } from '../runtime/child-process.js';
import { fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesFor } from '../runtime/evidence.js';
import { type JsonRpcId, JsonRpcPeer } from '../runtime/json-rpc.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { codexBinarySpec, versionFromUserAgent } from './discovery.js';
import {
  createTranslateState,
  modelInfoOf,
  NATIVE_SOURCE,
  type NotificationFrame,
  outcomeOf,
  type TranslateState,
  toItem,
  translateNotification,
} from './translate.js';
import type {
  AskForApproval,
  CommandExecutionRequestApprovalParams,
  FileChangeRequestApprovalParams,
  GetAccountResponse,
  InitializeParams,
  InitializeResponse,
  JsonValue,
  ModelListResponse,
  SandboxMode,
  ThreadItemsListResponse,
  ThreadListResponse,
  ThreadResumeParams,
  ThreadResumeResponse,
  ThreadStartParams,
  ThreadStartResponse,
  Turn,
  TurnStartParams,
  TurnStartResponse,
  UserInput,
} from './wire.js';

export interface CodexHarnessOptions extends HarnessOptions {
  /** How long a permission request waits for respondToPermission before it is declined (ms). */
  permissionTimeoutMs?: number;
  /** How long after turn/interrupt Codex has to end the turn before the adapter ends it (ms). */
  interruptGraceMs?: number;
}

const HARNESS = 'codex' as const;
const LABEL = 'codex app-server';
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_PERMISSION_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
const CLIENT_INFO = { name: 'reins', title: 'Reins', version: '0.1.0' };

/** What this adapter maps (docs/architecture/contract.md principle 5: the first of three layers). */
export const CODEX_IMPLEMENTED: ImplementedCapabilities = {
  resume: true,
  fork: false,
  interrupt: true,
  steer: 'native',
  queue: 'adapter',
  // turn/start takes model and effort for "this turn and subsequent turns": they apply at the next turn.
  liveModelSwitch: 'next_turn',
  liveEffortSwitch: 'next_turn',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'path',
  structuredOutput: 'native',
  usage: true,
  cost: false,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: true,
  mcpStatus: false,
  compaction: true,
  subagents: true,
};

// ---- the process + peer pair, shared by sessions and one-shot probes ---------------------------

interface Connection {
  process: HarnessProcess;
  peer: JsonRpcPeer;
  initialize: InitializeResponse;
}

interface ConnectHooks {
  onNotification?: (frame: NotificationFrame, at: number) => void;
  onRequest?: (method: string, params: unknown, id: JsonRpcId, frame: Record<string, unknown>) => Promise<unknown>;
  /** Lines that are not JSON-RPC (garbage, stray responses). */
  onStray?: (frame: unknown, at: number) => void;
}

class CodexRuntime {
  constructor(readonly options: CodexHarnessOptions) {}

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  env(additions?: Record<string, string>): Record<string, string> {
    return mergeEnv(this.options.baseEnv, additions);
  }

  async binaryPath(env: Record<string, string>): Promise<string> {
    return this.options.binaryPath ?? (await locateBinary(codexBinarySpec, env)).path;
  }

  /** Spawns `codex app-server --strict-config` and initializes it. */
  async connect(
    cwd: string,
    envAdditions: Record<string, string> | undefined,
    hooks: ConnectHooks,
  ): Promise<Connection> {
    const env = this.env(envAdditions);
    const command = await this.binaryPath(env);
    // --strict-config: without it an invalid config.toml silently falls back to the OpenAI provider
    // (seen on 0.169.0); a config error must be a visible start failure instead.
    const args = ['app-server', '--strict-config', ...(this.options.extraArgs ?? [])];
    const process_ = await HarnessProcess.start({
      command,
      args,
      cwd,
      env,
      label: LABEL,
      harness: HARNESS,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
    });
    const peer = new JsonRpcPeer({
      label: LABEL,
      harness: HARNESS,
      send: (line) => process_.writeLine(line),
      defaultTimeoutMs: this.requestTimeoutMs,
      includeVersion: false,
      onNotification: (method, _params, frame) =>
        hooks.onNotification?.({ ...frame, method } as NotificationFrame, Date.now()),
      ...(hooks.onRequest ? { onRequest: hooks.onRequest } : {}),
      onStray: (frame) => hooks.onStray?.(frame, Date.now()),
    });
    process_.onLine((line) => {
      if (line.trim() === '') return;
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        // Not JSON: keep it visible (passthrough), never crash the session over it.
        hooks.onStray?.(line, Date.now());
        return;
      }
      peer.receive(frame);
    });
    void process_.exited.then(() =>
      peer.close(
        new ReinsError('process_exited', process_.describeExit(), {
          harness: HARNESS,
          data: { exit: process_.exitStatus, stderr: process_.stderr.tail(8) },
        }),
      ),
    );
    try {
      const params: InitializeParams = {
        clientInfo: CLIENT_INFO,
        capabilities: { experimentalApi: false, requestAttestation: false },
      };
      const initialize = await peer.request<InitializeResponse>('initialize', params);
      peer.notify('initialized', {});
      return { process: process_, peer, initialize };
    } catch (error) {
      await process_.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      throw ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS, operation: 'initialize' });
    }
  }

  /** Runs `fn` against a short-lived app-server (catalog, account, session list, history). */
  async probe<T>(cwd: string, fn: (peer: JsonRpcPeer) => Promise<T>): Promise<T> {
    const connection = await this.connect(cwd, undefined, {});
    try {
      return await fn(connection.peer);
    } finally {
      await connection.process.close({ stdinGraceMs: 500, termGraceMs: 1000 });
    }
  }
}

// ---- the session -------------------------------------------------------------------------------

interface TurnRequest {
  turnId: string;
  input: TurnInput;
  schema: { original: JsonSchema; plan: StrictSchemaPlan } | undefined;
}

interface ActiveTurn extends TurnRequest {
  /** Codex's turn id, known from the turn/start response or turn/started. */
  nativeTurnId: string | undefined;
  /** Resolves once Codex accepted the turn (or it failed to start). */
  started: Promise<void>;
  /** The model the turn runs on, for error messages. */
  model: string | undefined;
  lastAgentText: string | undefined;
  usage: Usage | undefined;
  interruptTimer: NodeJS.Timeout | undefined;
}

interface PendingPermission {
  method: string;
  itemId: string | undefined;
  resolve: (decision: PermissionDecision, by: 'client' | 'timeout' | 'harness') => void;
}

function nativeFrame(frame: unknown): { source: string; method?: string; frame: unknown } {
  const method =
    typeof frame === 'object' && frame !== null && typeof (frame as { method?: unknown }).method === 'string'
      ? ((frame as { method: string }).method as string)
      : undefined;
  return method === undefined ? { source: NATIVE_SOURCE, frame } : { source: NATIVE_SOURCE, method, frame };
}

function toUserInput(input: TurnInput): UserInput[] {
  const parts: UserInput[] = [];
  let text = input.text;
  for (const file of input.files ?? []) {
    const lines = file.lines ? `:${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : '';
    text += `\n@${file.path}${lines}`;
  }
  parts.push({ type: 'text', text, text_elements: [] });
  for (const image of input.images ?? []) {
    if (image.source === 'path' && image.path) parts.push({ type: 'localImage', path: image.path });
    else if (image.source === 'data' && image.data) {
      parts.push({ type: 'image', url: `data:${image.mediaType ?? 'image/png'};base64,${image.data}` });
    } else {
      throw new ReinsError('invalid_input', 'An image needs a path (source "path") or base64 data (source "data").', {
        harness: HARNESS,
        operation: 'send',
      });
    }
  }
  return parts;
}

function posture(spec: SessionSpec): { approvalPolicy: AskForApproval; sandbox: SandboxMode } {
  // bypass: no sandbox, never ask. ask: Codex asks before anything it does not trust, and the requests
  // surface as permission events; the sandbox stays off because approvals are the gate here (and the
  // Linux sandbox needs bubblewrap, which 0.169.0 warns about when it is missing).
  return spec.posture === 'ask'
    ? { approvalPolicy: 'untrusted', sandbox: 'danger-full-access' }
    : { approvalPolicy: 'never', sandbox: 'danger-full-access' };
}

class CodexSession implements Session {
  readonly id = `rs_${randomUUID()}`;
  readonly harness = HARNESS;
  private readonly stream: SessionEventStream;
  private readonly state: TranslateState = createTranslateState();
  private connection: Connection | undefined;
  private threadId: string | undefined;
  private model: string | undefined;
  private pendingModel: string | undefined;
  private pendingEffort: Effort | undefined;
  private active: ActiveTurn | undefined;
  private readonly queue: TurnRequest[] = [];
  private turnCounter = 0;
  private readonly permissions = new Map<string, PendingPermission>();
  /** Frames that arrived before session.started was emitted. */
  private early: Array<() => void> | undefined = [];
  private closing: Promise<void> | undefined;

  constructor(
    private readonly runtime: CodexRuntime,
    private readonly spec: SessionSpec,
  ) {
    this.stream = new SessionEventStream({ harness: HARNESS, sessionId: this.id });
    this.model = spec.model;
    this.pendingEffort = spec.effort;
  }

  get nativeSessionId(): string | undefined {
    return this.threadId;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  async start(): Promise<void> {
    const connection = await this.runtime.connect(this.spec.cwd, this.spec.env, {
      onNotification: (frame, at) => this.later(() => this.onNotification(frame, at)),
      onRequest: (method, params, id, frame) => this.onServerRequest(method, params, id, frame),
      onStray: (frame, at) =>
        this.later(() => this.stream.emit({ type: 'passthrough', frame }, { native: nativeFrame(frame), at })),
    });
    this.connection = connection;
    void connection.process.exited.then(() => this.onExit());
    const version = versionFromUserAgent(connection.initialize.userAgent);
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: connection.process.spec.command,
      ...(version ? { harnessVersion: version } : {}),
      ...(this.spec.model ? { model: this.spec.model } : {}),
    });
    const early = this.early ?? [];
    this.early = undefined;
    for (const run of early) run();
    try {
      await this.openThread(connection.peer);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private later(run: () => void): void {
    if (this.closing && this.stream.isClosed) return;
    if (this.early) this.early.push(run);
    else run();
  }

  private async openThread(peer: JsonRpcPeer): Promise<void> {
    const { approvalPolicy, sandbox } = posture(this.spec);
    const common = {
      cwd: this.spec.cwd,
      approvalPolicy,
      sandbox,
      ...(this.spec.model ? { model: this.spec.model } : {}),
      ...(this.spec.systemPrompt ? { developerInstructions: this.spec.systemPrompt.append } : {}),
      ...(this.spec.mcpServers?.length ? { config: { mcp_servers: mcpConfig(this.spec) as JsonValue } } : {}),
    };
    let response: ThreadStartResponse | ThreadResumeResponse;
    if (this.spec.resume) {
      const params: ThreadResumeParams = {
        threadId: this.spec.resume.nativeSessionId,
        ...common,
        excludeTurns: true,
      };
      try {
        response = await peer.request<ThreadResumeResponse>('thread/resume', params);
      } catch (error) {
        // 0.169.0: an unknown id answers -32600 "no rollout found for thread id ...". Never start fresh.
        const cause = ReinsError.from(error, 'resume_failed');
        throw new ReinsError(
          'resume_failed',
          `Codex could not resume session ${this.spec.resume.nativeSessionId}: ${cause.message}`,
          { harness: HARNESS, operation: 'thread/resume', cause, ...(cause.data ? { data: cause.data } : {}) },
        );
      }
    } else {
      const params: ThreadStartParams = { ...common, ...(this.spec.ephemeral ? { ephemeral: true } : {}) };
      response = await peer.request<ThreadStartResponse>('thread/start', params);
    }
    this.threadId = response.thread.id;
    this.state.threadId = response.thread.id;
    this.model = response.model;
    this.stream.emit({
      type: 'session.updated',
      nativeSessionId: response.thread.id,
      model: response.model,
      ...(response.reasoningEffort ? { effort: response.reasoningEffort } : {}),
      ...(response.thread.name ? { title: response.thread.name } : {}),
    });
  }

  // ---- turns -----------------------------------------------------------------------------------

  async send(input: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    const turnInput = TurnInputSchema.parse(typeof input === 'string' ? { text: input } : input);
    this.assertOpen('send');
    const mode = options.mode ?? 'queue';
    const active = this.active;
    if (active && mode === 'steer') {
      if (options.outputSchema) {
        throw new ReinsError(
          'invalid_input',
          'An outputSchema belongs to a new turn; it cannot be added to a running turn by steering.',
          { harness: HARNESS, operation: 'send' },
        );
      }
      const steered = await this.steer(active, turnInput);
      if (steered) return { turnId: active.turnId, delivery: 'steered' };
      if (options.steerFallback === 'fail') {
        throw new ReinsError('unsupported_capability', 'Codex did not accept the steer and steerFallback is "fail".', {
          harness: HARNESS,
          operation: 'turn/steer',
        });
      }
    }
    const request: TurnRequest = {
      turnId: `turn_${++this.turnCounter}`,
      input: turnInput,
      schema: this.schemaFor(options),
    };
    if (this.active) {
      this.queue.push(request);
      return { turnId: request.turnId, delivery: 'queued' };
    }
    this.beginTurn(request);
    return { turnId: request.turnId, delivery: 'started' };
  }

  private schemaFor(options: SendOptions): TurnRequest['schema'] {
    const original = options.outputSchema ?? this.spec.outputSchema;
    if (!original) return undefined;
    // Throws invalid_input for a schema outside Codex's strict subset, before anything is sent.
    return { original, plan: toCodexStrictSchema(original) };
  }

  /** turn/steer on the running turn; false when the turn ended before Codex took it. */
  private async steer(active: ActiveTurn, input: TurnInput): Promise<boolean> {
    await active.started;
    if (this.active !== active || !active.nativeTurnId || !this.threadId) return false;
    try {
      await this.peer.request('turn/steer', {
        threadId: this.threadId,
        expectedTurnId: active.nativeTurnId,
        input: toUserInput(input),
      });
      return true;
    } catch (error) {
      // The turn ended between our check and Codex's ("expected active turn id"): deliver it as a new turn.
      if (this.active !== active || (ReinsError.isInstance(error) && error.code === 'protocol_error')) return false;
      throw error;
    }
  }

  private beginTurn(request: TurnRequest): void {
    const threadId = this.threadId as string;
    this.stream.startTurn(request.input, { turnId: request.turnId });
    let markStarted: () => void = () => {};
    const active: ActiveTurn = {
      ...request,
      nativeTurnId: undefined,
      started: new Promise<void>((resolve) => {
        markStarted = resolve;
      }),
      model: this.pendingModel ?? this.model,
      lastAgentText: undefined,
      usage: undefined,
      interruptTimer: undefined,
    };
    this.active = active;
    this.state.turnId = request.turnId;
    this.state.planCount = 0;
    // A fresh thread starts at zero; after a resume the total is unknown until Codex reports one.
    this.state.totalAtTurnStart = this.state.lastTotal ?? (this.spec.resume ? undefined : zeroBreakdown());
    const params: TurnStartParams = {
      threadId,
      input: toUserInput(request.input),
      ...(this.pendingModel ? { model: this.pendingModel } : {}),
      ...(this.pendingEffort ? { effort: this.pendingEffort } : {}),
      ...(request.schema ? { outputSchema: request.schema.plan.schema as JsonValue } : {}),
    };
    const appliedModel = this.pendingModel;
    const appliedEffort = this.pendingEffort;
    this.pendingModel = undefined;
    this.pendingEffort = undefined;
    if (appliedModel || appliedEffort) {
      if (appliedModel) this.model = appliedModel;
      this.stream.emit({
        type: 'session.updated',
        ...(appliedModel ? { model: appliedModel } : {}),
        ...(appliedEffort ? { effort: appliedEffort } : {}),
      });
    }
    this.peer
      .request<TurnStartResponse>('turn/start', params)
      .then((response) => {
        active.nativeTurnId ??= response.turn.id;
        markStarted();
      })
      .catch((error: unknown) => {
        markStarted();
        if (this.active !== active) return;
        const info = ReinsError.from(error, 'protocol_error', { harness: HARNESS, operation: 'turn/start' }).toInfo();
        this.finishTurn(active, { status: 'failed', error: info });
      });
  }

  private finishTurn(active: ActiveTurn, outcome: ReturnType<typeof outcomeOf>, at?: number, frame?: unknown): void {
    if (this.active !== active) return;
    if (active.interruptTimer) clearTimeout(active.interruptTimer);
    let structuredOutput: unknown;
    let finalOutcome = outcome;
    if (outcome.status === 'completed' && active.schema) {
      try {
        structuredOutput = acceptStructuredOutput(
          active.schema.original,
          active.lastAgentText === undefined ? undefined : { text: active.lastAgentText },
          active.schema.plan.restore,
        );
      } catch (error) {
        finalOutcome = {
          status: 'failed',
          error: ReinsError.from(error, 'structured_output_invalid', { harness: HARNESS }).toInfo(),
        };
      }
    }
    this.active = undefined;
    this.state.turnId = undefined;
    this.stream.completeTurn(
      {
        outcome: finalOutcome,
        ...(active.usage ? { usage: active.usage } : {}),
        ...(structuredOutput !== undefined ? { structuredOutput } : {}),
      },
      { ...(at !== undefined ? { at } : {}), ...(frame !== undefined ? { native: nativeFrame(frame) } : {}) },
    );
    const next = this.queue.shift();
    if (next && !this.closing && this.connection && !this.connection.process.hasExited) this.beginTurn(next);
  }

  /** Stops the running turn (cancelled outcome). Queued messages stay queued and start afterwards. */
  async interrupt(): Promise<void> {
    const active = this.active;
    if (!active || this.closing) return;
    await active.started;
    if (this.active !== active || !active.nativeTurnId || !this.threadId) return;
    // 0.169.0 answers {} at once and then sends turn/completed {status: interrupted}; if that never comes,
    // end the turn ourselves so the caller is not left with a turn that cannot finish.
    active.interruptTimer ??= setTimeout(
      () => this.finishTurn(active, { status: 'cancelled' }),
      this.runtime.options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
    );
    await this.peer.request('turn/interrupt', { threadId: this.threadId, turnId: active.nativeTurnId });
  }

  async setModel(model: string): Promise<SettingChange> {
    this.assertOpen('setModel');
    if (!model.trim()) {
      throw new ReinsError('invalid_input', 'setModel needs a model id.', { harness: HARNESS, operation: 'setModel' });
    }
    this.pendingModel = model;
    return { applied: 'next_turn' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.assertOpen('setEffort');
    this.pendingEffort = effort;
    return { applied: 'next_turn' };
  }

  // ---- approvals -------------------------------------------------------------------------------

  private async onServerRequest(
    method: string,
    params: unknown,
    id: JsonRpcId,
    frame: Record<string, unknown>,
  ): Promise<unknown> {
    const at = Date.now();
    if (method === 'item/commandExecution/requestApproval') {
      const request = params as CommandExecutionRequestApprovalParams;
      const tool: ToolInfo = {
        kind: 'command',
        name: 'exec_command',
        ...(request.command ? { title: request.command } : {}),
      };
      const decision = await this.askPermission(String(id), method, request.itemId, tool, request, frame, at, true);
      return { decision: codexDecision(decision, true) };
    }
    if (method === 'item/fileChange/requestApproval') {
      const request = params as FileChangeRequestApprovalParams;
      const tool: ToolInfo = { kind: 'file_change', name: 'apply_patch' };
      const decision = await this.askPermission(String(id), method, request.itemId, tool, request, frame, at, true);
      return { decision: codexDecision(decision, true) };
    }
    // Requests Reins has no event for yet (user input, MCP elicitation, ...): visible, and refused.
    this.later(() => this.stream.emit({ type: 'passthrough', frame }, { native: nativeFrame(frame), at }));
    throw new ReinsError('unsupported_capability', `Reins does not answer ${method} yet.`, { harness: HARNESS });
  }

  private askPermission(
    requestId: string,
    method: string,
    itemId: string,
    tool: ToolInfo,
    input: unknown,
    frame: Record<string, unknown>,
    at: number,
    sessionScope: boolean,
  ): Promise<PermissionDecision> {
    const options: PermissionOption[] = [
      { id: 'accept', kind: 'allow_once', label: 'Allow' },
      ...(sessionScope
        ? [{ id: 'acceptForSession', kind: 'allow_always' as const, label: 'Allow for this session' }]
        : []),
      { id: 'decline', kind: 'reject_once', label: 'Decline' },
    ];
    return new Promise<PermissionDecision>((resolve) => {
      const timeoutMs = this.runtime.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
      const timer = setTimeout(
        () => pending.resolve({ behavior: 'deny', message: `No answer within ${timeoutMs} ms; declined.` }, 'timeout'),
        timeoutMs,
      );
      const pending: PendingPermission = {
        method,
        itemId,
        resolve: (decision, by) => {
          if (!this.permissions.has(requestId)) return;
          this.permissions.delete(requestId);
          clearTimeout(timer);
          if (!this.stream.isClosed) this.stream.emit({ type: 'permission.resolved', requestId, decision, by });
          resolve(decision);
        },
      };
      this.permissions.set(requestId, pending);
      this.stream.emit(
        { type: 'permission.requested', requestId, tool, input, itemId, options },
        { native: nativeFrame(frame), at },
      );
    });
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    const pending = this.permissions.get(requestId);
    if (!pending) {
      throw new ReinsError(
        'invalid_input',
        `No open permission request "${requestId}" in this session (already answered, withdrawn or timed out).`,
        { harness: HARNESS, operation: 'respondToPermission' },
      );
    }
    pending.resolve(decision, 'client');
  }

  // ---- frames ----------------------------------------------------------------------------------

  private onNotification(frame: NotificationFrame, at: number): void {
    if (this.stream.isClosed) return;
    const meta = { native: nativeFrame(frame), at };
    const params = (frame.params ?? {}) as Record<string, unknown>;
    const mainThread = params.threadId === undefined || params.threadId === this.threadId;
    const active = this.active;
    switch (frame.method) {
      case 'turn/started': {
        const turn = params.turn as Turn | undefined;
        if (mainThread && active && turn) {
          active.nativeTurnId ??= turn.id;
          return;
        }
        break;
      }
      case 'turn/completed': {
        const turn = params.turn as Turn | undefined;
        if (mainThread && active && turn && (active.nativeTurnId === undefined || active.nativeTurnId === turn.id)) {
          this.finishTurn(active, outcomeOf(turn, active.model), at, frame);
          return;
        }
        break;
      }
      case 'serverRequest/resolved': {
        // Codex withdrew a request we had not answered (the turn was interrupted, ...).
        const pending = this.permissions.get(String(params.requestId));
        if (pending) pending.resolve({ behavior: 'deny', message: 'Codex withdrew the request.' }, 'harness');
        break;
      }
      default:
        break;
    }
    for (const translated of translateNotification(this.state, frame)) {
      const payload = translated.payload;
      if (payload.type === 'usage.updated' && active && mainThread) {
        const { type: _type, ...usage } = payload;
        active.usage = usage;
      }
      if (
        payload.type === 'item.completed' &&
        payload.item.kind === 'agent_message' &&
        active &&
        translated.parentItemId === undefined
      ) {
        active.lastAgentText = payload.item.text;
      }
      this.stream.emit(payload, {
        ...meta,
        ...(translated.parentItemId !== undefined ? { parentItemId: translated.parentItemId } : {}),
      });
    }
  }

  private onExit(): void {
    for (const pending of [...this.permissions.values()]) {
      pending.resolve({ behavior: 'deny', message: 'The Codex process ended.' }, 'harness');
    }
    if (this.closing || this.stream.isClosed) return;
    const connection = this.connection as Connection;
    const error = new ReinsError('process_exited', connection.process.describeExit(), {
      harness: HARNESS,
      data: { exit: connection.process.exitStatus },
    }).toInfo();
    if (this.active?.interruptTimer) clearTimeout(this.active.interruptTimer);
    this.active = undefined;
    this.queue.length = 0;
    this.stream.close('process_exited', error);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const pending of [...this.permissions.values()]) {
        pending.resolve({ behavior: 'deny', message: 'The session was closed.' }, 'harness');
      }
      if (this.active?.interruptTimer) clearTimeout(this.active.interruptTimer);
      this.queue.length = 0;
      await this.connection?.process.close();
      this.active = undefined;
      this.stream.close('requested');
    })();
    return this.closing;
  }

  private get peer(): JsonRpcPeer {
    return (this.connection as Connection).peer;
  }

  private assertOpen(operation: string): void {
    if (this.closing || this.stream.isClosed || !this.connection || this.connection.process.hasExited) {
      throw new ReinsError('invalid_input', 'This Codex session is closed; start or resume a new one.', {
        harness: HARNESS,
        operation,
      });
    }
  }
}

function zeroBreakdown() {
  return {
    totalTokens: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 0,
    reasoningOutputTokens: 0,
  };
}

/** PermissionDecision -> Codex's decision string (command and file approvals share these). */
function codexDecision(decision: PermissionDecision, sessionScope: boolean): 'accept' | 'acceptForSession' | 'decline' {
  if (decision.optionId === 'accept' || decision.optionId === 'acceptForSession' || decision.optionId === 'decline') {
    return decision.optionId;
  }
  if (decision.behavior === 'deny') return 'decline';
  return decision.scope === 'session' && sessionScope ? 'acceptForSession' : 'accept';
}

function mcpConfig(spec: SessionSpec): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const server of spec.mcpServers ?? []) {
    servers[server.name] =
      server.transport === 'stdio'
        ? { command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}) }
        : { url: server.url, ...(server.headers ? { http_headers: server.headers } : {}) };
  }
  return servers;
}

// ---- the Harness -------------------------------------------------------------------------------

export function createCodexHarness(options: CodexHarnessOptions = {}): Harness {
  const runtime = new CodexRuntime(options);

  const discover = async (): Promise<Discovery> => {
    const env = runtime.env();
    try {
      const binary = options.binaryPath
        ? await fingerprintBinary(options.binaryPath, codexBinarySpec, 'explicit', env)
        : await locateBinary(codexBinarySpec, env);
      return { found: true, binary };
    } catch (error) {
      const reins = ReinsError.from(error, 'binary_not_found', { harness: HARNESS });
      return {
        found: false,
        searched: options.binaryPath ? [options.binaryPath] : (env.PATH ?? '').split(':').filter(Boolean),
        hint: reins.message,
      };
    }
  };

  return {
    id: HARNESS,
    displayName: 'Codex',
    discover,

    async health(): Promise<Health> {
      const discovery = await discover();
      if (!discovery.found) {
        return { status: 'not_installed', message: discovery.hint, fix: 'npm install -g @openai/codex' };
      }
      const binary = discovery.binary;
      const unanswered = failedProbeHealth(binary);
      if (unanswered) return unanswered;
      try {
        // account/read says whether Codex needs an OpenAI login for its configured provider; Reins never
        // looks at credential files itself.
        const account = await runtime.probe(process.cwd(), (peer) =>
          peer.request<GetAccountResponse>('account/read', { refreshToken: false }),
        );
        if (account.requiresOpenaiAuth && account.account === null) {
          return {
            status: 'auth_required',
            binary,
            message: 'Codex needs an OpenAI login for its configured provider.',
            fix: 'Run `codex login`, or configure a provider with an API key in ~/.codex/config.toml.',
          };
        }
        return { status: 'ready', binary };
      } catch (error) {
        const reins = ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS });
        return {
          status: 'unhealthy',
          binary,
          message: reins.message,
          fix: 'Run `codex app-server --strict-config` by hand to see why it does not start.',
        };
      }
    },

    async capabilities(): Promise<CapabilityMatrix> {
      // Codex advertises no capability list of its own; `observed` comes from the evidence store,
      // for the binary discovery finds now (a new binary starts with nothing observed).
      const found = await discover();
      return capabilitiesFor({
        harness: 'codex',
        implemented: CODEX_IMPLEMENTED,
        ...(found.found ? { binary: found.binary } : {}),
      });
    },

    async models(): Promise<ModelInfo[]> {
      return runtime.probe(process.cwd(), async (peer) => {
        const models: ModelInfo[] = [];
        let cursor: string | null = null;
        do {
          const page: ModelListResponse = await peer.request<ModelListResponse>('model/list', cursor ? { cursor } : {});
          models.push(...page.data.map(modelInfoOf));
          cursor = page.nextCursor;
        } while (cursor);
        return models;
      });
    },

    async listSessions(listOptions: { cwd?: string }): Promise<SessionSummary[]> {
      return runtime.probe(listOptions.cwd ?? process.cwd(), async (peer) => {
        const response = await peer.request<ThreadListResponse>(
          'thread/list',
          listOptions.cwd ? { cwd: listOptions.cwd } : {},
        );
        return response.data.map((thread) => ({
          nativeSessionId: thread.id,
          cwd: thread.cwd,
          ...((thread.name ?? thread.preview) ? { title: thread.name ?? thread.preview } : {}),
          updatedAt: thread.updatedAt * 1000,
        }));
      });
    },

    async history(nativeSessionId: string, historyOptions: { cwd?: string } = {}): Promise<Item[]> {
      return runtime.probe(historyOptions.cwd ?? process.cwd(), async (peer) => {
        const items: Item[] = [];
        let cursor: string | null = null;
        do {
          let page: ThreadItemsListResponse;
          try {
            page = await peer.request<ThreadItemsListResponse>('thread/items/list', {
              threadId: nativeSessionId,
              limit: 200,
              ...(cursor ? { cursor } : {}),
            });
          } catch (error) {
            throw new ReinsError(
              'invalid_input',
              `Codex has no readable history for session ${nativeSessionId}: ${ReinsError.from(error, 'protocol_error').message}`,
              { harness: HARNESS, operation: 'thread/items/list', cause: error },
            );
          }
          for (const entry of page.data) {
            const item = toItem(entry.item);
            if (!item) continue;
            items.push(item.kind === 'user_message' ? { ...item, replay: true } : item);
          }
          cursor = page.nextCursor;
        } while (cursor);
        return items;
      });
    },

    async createSession(spec: SessionSpec): Promise<Session> {
      const parsed = SessionSpecSchema.safeParse(spec);
      if (!parsed.success) {
        throw new ReinsError('invalid_input', `Invalid session spec: ${parsed.error.message}`, {
          harness: HARNESS,
          operation: 'createSession',
        });
      }
      const session = new CodexSession(runtime, parsed.data);
      await session.start();
      return session;
    },
  };
}
