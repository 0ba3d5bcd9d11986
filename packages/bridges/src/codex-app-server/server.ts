// The Codex app-server side of the bridge: one client connection in front of one Reins harness. Each
// Codex thread is one Reins session; a pump per thread turns its events into notifications
// (translate.ts) and asks the client for approvals. Requests map onto the Session API:
//   thread/start -> createSession       turn/start -> [setModel/setEffort] + send
//   thread/resume -> createSession({resume})   turn/steer -> send({ mode: 'steer' })
//   thread/unsubscribe -> close         turn/interrupt -> interrupt
// plus model/list, thread/list, thread/items/list and account/read for the catalog and history.
// The transport is injected (`send` a line, `receive` a line), so this runs over stdio or in memory.
//
// Thread ids: the thread id IS the harness's native session id whenever the harness knows it when
// the session is created (Claude Code's preset uuid, Codex's thread id, ACP agents' ids), so
// thread/resume of that id works from any bridge process. A harness that learns its id only later
// gets a bridge-made `reins-<uuid>` (a Codex thread id cannot change), which this process maps to
// the native id for thread/resume.
import { randomUUID } from 'node:crypto';
import {
  type CapabilityMatrix,
  type Effort,
  type Harness,
  type ModelInfo,
  type PermissionRequestedEvent,
  type Posture,
  ReinsError,
  type SendResult,
  type Session,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import { reinsHome } from '@reins/harnesses';
import {
  DEFAULT_PERMISSION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  isImplemented,
  withDeadline,
} from '../lifecycle.js';
import { RpcConnection, RpcError } from './connection.js';
import {
  approvalAnswerOf,
  approvalPolicyOf,
  checkTurnOverrides,
  effortOf,
  optionalString,
  outputSchemaOf,
  ParamsError,
  paramsObject,
  requiredString,
  type ThreadRequest,
  threadRequestOf,
  turnInputOf,
} from './requests.js';
import {
  beginSteer,
  codexTurnIdOf,
  createThreadState,
  endSteer,
  historyTurns,
  requestInterrupt,
  startedTurn,
  type ThreadState,
  threadItemOf,
  translateEvent,
} from './translate.js';
import {
  type ApprovalRequest,
  type BridgeNotification,
  CODEX_PROTOCOL_VERSION,
  type GetAccountResponse,
  type InitializeResponse,
  type Model,
  RPC,
  type Thread,
  type ThreadItemsListResponse,
  type ThreadListResponse,
  type ThreadResumeResponse,
  type ThreadStartResponse,
  type ThreadUnsubscribeResponse,
  type Turn,
  type TurnStartResponse,
  type TurnSteerResponse,
} from './wire.js';

export interface CodexAppServerBridgeOptions {
  harness: Harness;
  /** Applied to every thread unless its params say otherwise. */
  defaults?: { model?: string; effort?: Effort; posture?: Posture };
  /** The cwd of a thread whose params name none (Codex: the server's own). */
  cwd?: string;
  /** Deadline for everything but a turn (turns run as long as the work takes; interrupt ends them). */
  requestTimeoutMs?: number;
  /** How long an approval request waits for the client before it counts as declined. */
  permissionTimeoutMs?: number;
  /** The harness's version, for the initialize userAgent. */
  harnessVersion?: string;
  /** Diagnostics; never the protocol channel. */
  log?: (message: string) => void;
  version?: string;
}

/** Anything a handler throws -> the JSON-RPC error the client gets (Reins errors keep their ErrorInfo as data). */
export function rpcErrorOf(error: unknown, operation: string): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ParamsError) return new RpcError(RPC.invalidParams, error.message, { field: error.field });
  const reins = ReinsError.from(error, 'protocol_error', { operation });
  const code =
    reins.code === 'invalid_input'
      ? RPC.invalidParams
      : ['protocol_error', 'process_exited', 'timeout', 'harness_unhealthy'].includes(reins.code)
        ? RPC.internalError
        : // Codex answers every refusal (unknown thread, no rollout, wrong turn) with -32600.
          RPC.invalidRequest;
  return new RpcError(code, reins.message, reins.toInfo());
}

interface ThreadContext {
  connection: RpcConnection;
  requestTimeoutMs: number;
  permissionTimeoutMs: number;
  optedOut: ReadonlySet<string>;
  log: (message: string) => void;
  /** The session's event stream ended (closed, or the harness went away). */
  ended: (thread: BridgeThread) => void;
}

interface Approval {
  rpcId: number | string;
}

/** One Codex thread over one Reins session. */
class BridgeThread {
  readonly pump: Promise<void>;
  readonly createdAt = Date.now();
  private holds = 0;
  private held: Array<() => void> = [];
  private readonly approvals = new Map<string, Approval>();
  /** Reins turns turn/start began whose turn.started the pump has not seen yet. */
  readonly unstarted = new Set<string>();
  /** Of those, the ones a turn/interrupt already asked to stop. */
  readonly interruptOnStart = new Set<string>();

  constructor(
    readonly id: string,
    readonly session: Session,
    readonly state: ThreadState,
    readonly request: ThreadRequest,
    private readonly context: ThreadContext,
  ) {
    this.pump = this.run();
  }

  /**
   * Holds this thread's output until the answer of the request in progress is on the wire (a
   * client must hear of a thread or turn before notifications name it). Returns the release.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The answer is written when the handler's promise settles: after that, not before.
      setImmediate(() => {
        this.holds--;
        if (this.holds > 0) return;
        const held = this.held;
        this.held = [];
        for (const write of held) write();
      });
    };
  }

  private out(write: () => void): void {
    if (this.holds > 0) this.held.push(write);
    else write();
  }

  emit(notifications: BridgeNotification[]): void {
    for (const notification of notifications) {
      if (this.context.optedOut.has(notification.method)) continue;
      this.out(() => this.context.connection.notify(notification.method, notification.params));
    }
  }

  private async run(): Promise<void> {
    try {
      for await (const event of this.session.events) {
        this.emit(translateEvent(this.state, event));
        switch (event.type) {
          case 'turn.started':
            if (event.turnId !== null) {
              this.unstarted.delete(event.turnId);
              if (this.interruptOnStart.delete(event.turnId)) requestInterrupt(this.state, event.turnId);
            }
            // Input that joined a Codex turn being interrupted is stopped too.
            if (this.state.turn?.interruptRequested) void this.interruptNow();
            break;
          case 'permission.requested':
            this.out(() => void this.askApproval(event));
            break;
          case 'permission.resolved': {
            const approval = this.approvals.get(event.requestId);
            if (!approval) break;
            this.approvals.delete(event.requestId);
            // Decided, withdrawn or timed out: the client's prompt is moot either way.
            if (event.by !== 'client') this.context.connection.forget(approval.rpcId, 'withdrawn by the harness');
            this.emit([{ method: 'serverRequest/resolved', params: { threadId: this.id, requestId: approval.rpcId } }]);
            break;
          }
          default:
            break;
        }
      }
    } catch (error) {
      this.context.log(`the event stream of thread ${this.id} failed: ${String(error)}`);
    }
    this.context.ended(this);
  }

  interruptNow(): Promise<void> {
    return withDeadline(this.session.interrupt(), this.context.requestTimeoutMs, 'interrupt').catch((error: unknown) =>
      this.context.log(`interrupt of thread ${this.id} failed: ${String(error)}`),
    );
  }

  private approvalRequest(event: PermissionRequestedEvent): ApprovalRequest {
    const turnId = codexTurnIdOf(this.state, event.turnId) ?? this.state.turn?.id ?? this.state.lastTurnId ?? '';
    const itemId = event.itemId ?? `permission-${event.requestId}`;
    const common = { threadId: this.id, turnId, itemId, startedAtMs: event.at };
    if (event.tool.kind === 'file_change') {
      return { method: 'item/fileChange/requestApproval', params: { ...common, reason: null, grantRoot: null } };
    }
    const command =
      event.tool.kind === 'command'
        ? threadItemOf(
            { kind: 'tool_call', id: itemId, status: 'running', tool: event.tool, input: event.input },
            { threadId: this.id, cwd: this.state.cwd },
          )
        : undefined;
    return {
      method: 'item/commandExecution/requestApproval',
      params: {
        ...common,
        kind: 'command',
        environmentId: null,
        command: command?.type === 'commandExecution' ? command.command : (event.tool.title ?? event.tool.name),
        cwd: command?.type === 'commandExecution' ? command.cwd : this.state.cwd,
        commandActions: [],
        // Codex asks only for commands and file edits; another tool is asked for as a command, and
        // the reason says which tool it really is.
        ...(event.tool.kind === 'command'
          ? {}
          : { reason: `Approve the ${event.tool.name} tool (${event.tool.kind}): ${summarize(event.input)}` }),
      },
    };
  }

  private async askApproval(event: PermissionRequestedEvent): Promise<void> {
    const { method, params } = this.approvalRequest(event);
    const { id, answer } = this.context.connection.request(method, params, this.context.permissionTimeoutMs);
    this.approvals.set(event.requestId, { rpcId: id });
    let result: ReturnType<typeof approvalAnswerOf>;
    try {
      result = approvalAnswerOf(await answer, event.options);
    } catch (error) {
      // Withdrawn, timed out, refused or the client is gone: the tool does not run.
      this.context.log(`approval ${event.requestId} not granted (${String(error)}); declining`);
      result = approvalAnswerOf(undefined, event.options);
    }
    await this.session.respondToPermission(event.requestId, result.decision).catch((error: unknown) => {
      // Already settled by the harness (withdrawn, its own deadline): nothing waits for this answer.
      if (!(ReinsError.isInstance(error) && error.code === 'invalid_input')) {
        this.context.log(`respondToPermission failed: ${String(error)}`);
      }
    });
    if (result.stopTurn && this.state.turn) {
      requestInterrupt(this.state, this.state.turn.id);
      await this.interruptNow();
    }
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

function summarize(value: unknown): string {
  const text = value === undefined ? 'no input' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export class CodexAppServerBridge {
  private readonly threads = new Map<string, BridgeThread>();
  /** Bridge-made thread ids -> the native id learned later (see the header). */
  private readonly nativeIds = new Map<string, string>();
  private connection: RpcConnection | undefined;
  private initialized = false;
  private optedOut: ReadonlySet<string> = new Set();
  private capabilityMatrix: Promise<CapabilityMatrix | undefined> | undefined;
  private closing: Promise<void> | undefined;
  private readonly requestTimeoutMs: number;
  private readonly log: (message: string) => void;

  constructor(private readonly options: CodexAppServerBridgeOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.log = options.log ?? (() => {});
  }

  get harness(): Harness {
    return this.options.harness;
  }

  /** Open threads (for diagnostics and tests). */
  get threadCount(): number {
    return this.threads.size;
  }

  /** Serves one client: `send` writes a line to it; feed its lines to the returned `receive`. */
  connect(send: (line: string) => void): { receive: (line: string) => void } {
    if (this.connection) throw new Error('A CodexAppServerBridge serves one connection.');
    const connection = new RpcConnection({
      send,
      onRequest: (method, params) => this.dispatch(method, params),
      onNotification: (method) => {
        // `initialized` is the only client notification; anything else has nothing to act on.
        if (method !== 'initialized') this.log(`ignored the client notification ${method}`);
      },
      log: this.log,
    });
    this.connection = connection;
    return { receive: (line) => connection.receive(line) };
  }

  /** Closes every thread (their harness processes end with them) and the connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const open = [...this.threads.values()];
      this.threads.clear();
      await Promise.all(open.map((thread) => thread.close().catch(() => {})));
      this.connection?.close(new Error('The bridge is shutting down.'));
    })();
    return this.closing;
  }

  // ---- dispatch ----

  private readonly handlers: Record<string, (params: Record<string, unknown>) => Promise<unknown>> = {
    'thread/start': (params) => this.startThread(params),
    'thread/resume': (params) => this.resumeThread(params),
    'thread/unsubscribe': (params) => this.unsubscribe(params),
    'turn/start': (params) => this.startTurn(params),
    'turn/steer': (params) => this.steer(params),
    'turn/interrupt': (params) => this.interrupt(params),
    'model/list': () => this.listModels(),
    'thread/list': (params) => this.listThreads(params),
    'thread/items/list': (params) => this.listItems(params),
    // The harness authenticates itself (Reins never handles credentials): no OpenAI account here.
    'account/read': async (): Promise<GetAccountResponse> => ({
      account: null,
      userId: null,
      requiresOpenaiAuth: false,
    }),
  };

  private async dispatch(method: string, params: unknown): Promise<unknown> {
    try {
      if (method === 'initialize') return this.initialize(paramsObject(params));
      // Codex 0.169.0 answers requests before initialize with -32600 "Not initialized".
      if (!this.initialized) throw new RpcError(RPC.invalidRequest, 'Not initialized');
      const handler = this.handlers[method];
      if (!handler) {
        throw new RpcError(
          RPC.methodNotFound,
          `The Reins bridge does not implement ${method}; it serves initialize, ${Object.keys(this.handlers).join(', ')}.`,
          { method },
        );
      }
      if (this.closing) throw new ReinsError('process_exited', 'The bridge is shutting down.');
      return await handler(paramsObject(params));
    } catch (error) {
      throw rpcErrorOf(error, method);
    }
  }

  private capabilities(): Promise<CapabilityMatrix | undefined> {
    this.capabilityMatrix ??= withDeadline(this.harness.capabilities(), this.requestTimeoutMs, 'capabilities').catch(
      (error: unknown) => {
        this.log(`could not read the ${this.harness.id} capabilities: ${String(error)}`);
        return undefined;
      },
    );
    return this.capabilityMatrix;
  }

  private initialize(params: Record<string, unknown>): InitializeResponse {
    if (this.initialized) throw new RpcError(RPC.invalidRequest, 'Already initialized');
    const capabilities = params.capabilities;
    const optOut =
      typeof capabilities === 'object' && capabilities !== null
        ? (capabilities as { optOutNotificationMethods?: unknown }).optOutNotificationMethods
        : undefined;
    if (Array.isArray(optOut)) this.optedOut = new Set(optOut.filter((entry) => typeof entry === 'string'));
    this.initialized = true;
    void this.capabilities();
    const harness = this.options.harnessVersion ? `${this.harness.id} ${this.options.harnessVersion}` : this.harness.id;
    return {
      // "<name>/<version> (...)": clients read the version after the first slash (the bridge's own).
      userAgent: `reins-bridge/${this.options.version ?? '0.1.0'} (${harness}; codex app-server ${CODEX_PROTOCOL_VERSION})`,
      // The bridge keeps no Codex home; its own state folder is the honest answer.
      codexHome: reinsHome(),
      platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
      platformOs: process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : process.platform,
    };
  }

  // ---- threads ----

  private defaults() {
    const defaults = this.options.defaults ?? {};
    return {
      cwd: this.options.cwd ?? process.cwd(),
      posture: defaults.posture ?? 'bypass',
      ...(defaults.model ? { model: defaults.model } : {}),
    };
  }

  private threadFor(threadId: string): BridgeThread {
    const thread = this.threads.get(threadId);
    // Codex 0.169.0: "thread not found: <id>".
    if (!thread) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
    return thread;
  }

  private async open(request: ThreadRequest, resume: string | undefined, threadId: string | undefined) {
    const effort = this.options.defaults?.effort;
    const spec: SessionSpec = {
      cwd: request.cwd,
      posture: request.posture,
      ...(request.model ? { model: request.model } : {}),
      ...(effort ? { effort } : {}),
      ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
      ...(request.mcpServers ? { mcpServers: request.mcpServers } : {}),
      ...(request.ephemeral ? { ephemeral: true } : {}),
      ...(resume ? { resume: { nativeSessionId: resume } } : {}),
    };
    const session = await withDeadline(
      this.harness.createSession(spec),
      this.requestTimeoutMs,
      'createSession',
      (late) => void late.close(),
    );
    if (this.closing) {
      await session.close();
      throw new ReinsError('process_exited', 'The bridge is shutting down.');
    }
    const id = threadId ?? session.nativeSessionId ?? `reins-${randomUUID()}`;
    const state = createThreadState({
      threadId: id,
      cwd: request.cwd,
      ...(request.model ? { model: request.model } : {}),
      ...(effort ? { effort } : {}),
    });
    const thread = new BridgeThread(id, session, state, request, {
      connection: this.connection as RpcConnection,
      requestTimeoutMs: this.requestTimeoutMs,
      permissionTimeoutMs: this.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
      optedOut: this.optedOut,
      log: this.log,
      ended: (ended) => {
        // A thread whose harness went away is gone: requests naming it get "thread not found".
        if (this.threads.get(ended.id) === ended) this.threads.delete(ended.id);
        this.rememberNativeId(ended);
      },
    });
    this.threads.set(id, thread);
    const release = thread.hold();
    // The session's first events (model, native id) are already queued: let the pump take them in
    // before the answer is built from its state.
    await new Promise((resolve) => setImmediate(resolve));
    if (!session.nativeSessionId) this.log(`thread ${id}: the harness has no native session id yet`);
    return { thread, release };
  }

  private threadObject(thread: BridgeThread, turns: Turn[] = []): Thread {
    const state = thread.state;
    const created = Math.floor(thread.createdAt / 1000);
    return {
      id: thread.id,
      sessionId: thread.id,
      forkedFromId: null,
      parentThreadId: null,
      preview: '',
      ephemeral: thread.request.ephemeral === true,
      section: null,
      sectionEnteredAt: null,
      projectId: null,
      historyMode: 'paginated',
      // The harness behind the bridge stands where Codex names its provider.
      modelProvider: this.harness.id,
      model: state.model ?? null,
      reasoningEffort: state.effort ?? null,
      createdAt: created,
      updatedAt: created,
      recencyAt: created,
      status: state.turn ? { type: 'active', activeFlags: [] } : { type: 'idle' },
      path: null,
      cwd: state.cwd,
      cliVersion: state.harnessVersion ?? '',
      originator: null,
      source: { custom: 'reins-bridge' },
      threadSource: null,
      agentNickname: null,
      agentRole: null,
      gitInfo: null,
      name: state.title ?? null,
      turns,
    };
  }

  private threadAnswer(thread: BridgeThread, turns: Turn[] = []): ThreadStartResponse {
    return {
      thread: this.threadObject(thread, turns),
      // Codex always names the model; a harness that did not say which it runs leaves it empty.
      model: thread.state.model ?? '',
      modelProvider: this.harness.id,
      serviceTier: null,
      disabledPluginIds: [],
      cwd: thread.state.cwd,
      instructionSources: [],
      approvalPolicy: approvalPolicyOf(thread.request.posture),
      approvalsReviewer: 'user',
      // What is enforced: nothing beyond the approvals (see requests.ts checkSandbox).
      sandbox: { type: 'dangerFullAccess' },
      reasoningEffort: thread.state.effort ?? null,
    };
  }

  private async startThread(params: Record<string, unknown>): Promise<ThreadStartResponse> {
    const request = threadRequestOf(params, this.defaults());
    const { thread, release } = await this.open(request, undefined, undefined);
    const answer = this.threadAnswer(thread);
    thread.emit([{ method: 'thread/started', params: { thread: this.threadObject(thread) } }]);
    release();
    return answer;
  }

  private async resumeThread(params: Record<string, unknown>): Promise<ThreadResumeResponse> {
    const threadId = requiredString(params, 'threadId');
    const excludeTurns = params.excludeTurns === true;
    const open = this.threads.get(threadId);
    // A thread this bridge runs is rejoined, as Codex does.
    if (open) return this.resumeAnswer(open, excludeTurns ? [] : await this.historyOf(open, threadId));
    const nativeId = this.nativeIds.get(threadId) ?? threadId;
    if (threadId.startsWith('reins-') && nativeId === threadId) {
      throw new ReinsError(
        'resume_failed',
        `Thread ${threadId} was named by another bridge process before its harness had an id; it cannot be resumed here.`,
        { operation: 'thread/resume' },
      );
    }
    const request = threadRequestOf(params, this.defaults());
    const { thread, release } = await this.open(request, nativeId, threadId);
    try {
      return this.resumeAnswer(thread, excludeTurns ? [] : await this.historyOf(thread, nativeId));
    } finally {
      release();
    }
  }

  private resumeAnswer(thread: BridgeThread, turns: Turn[]): ThreadResumeResponse {
    return {
      ...this.threadAnswer(thread, turns),
      collaborationMode: null,
      turnsBackwardsCursor: null,
      itemsBackwardsCursor: null,
    };
  }

  private async historyOf(thread: BridgeThread, nativeId: string): Promise<Turn[]> {
    if (!this.harness.history) return [];
    try {
      const items = await withDeadline(
        this.harness.history(nativeId, { cwd: thread.state.cwd }),
        this.requestTimeoutMs,
        'history',
      );
      return historyTurns(items, { threadId: thread.id, cwd: thread.state.cwd });
    } catch (error) {
      this.log(`thread ${thread.id} resumed, but its history could not be read: ${String(error)}`);
      return [];
    }
  }

  private async unsubscribe(params: Record<string, unknown>): Promise<ThreadUnsubscribeResponse> {
    const threadId = requiredString(params, 'threadId');
    const thread = this.threads.get(threadId);
    if (!thread) return { status: 'notLoaded' };
    this.threads.delete(threadId);
    await withDeadline(thread.close(), this.requestTimeoutMs, 'close');
    return { status: 'unsubscribed' };
  }

  private rememberNativeId(thread: BridgeThread): void {
    const native = thread.state.nativeSessionId ?? thread.session.nativeSessionId;
    if (native && native !== thread.id) this.nativeIds.set(thread.id, native);
  }

  // ---- turns ----

  /** Model and effort ride on turn/start in Codex ("this turn and subsequent turns"). */
  private async applySettings(thread: BridgeThread, params: Record<string, unknown>): Promise<void> {
    const model = optionalString(params, 'model');
    const effort = effortOf(params.effort);
    if (model && model !== thread.state.model) {
      await withDeadline(thread.session.setModel(model), this.requestTimeoutMs, 'setModel');
      thread.state.model = model;
    }
    if (effort && effort !== thread.state.effort) {
      await withDeadline(thread.session.setEffort(effort), this.requestTimeoutMs, 'setEffort');
      thread.state.effort = effort;
    }
  }

  private async startTurn(params: Record<string, unknown>): Promise<TurnStartResponse> {
    const thread = this.threadFor(requiredString(params, 'threadId'));
    const input = turnInputOf(params.input);
    const outputSchema = outputSchemaOf(params.outputSchema);
    checkTurnOverrides(params, { cwd: thread.state.cwd, posture: thread.request.posture });
    await this.applySettings(thread, params);
    const open = thread.state.turn;
    if (open) {
      // Codex 0.169.0 adds a turn/start that arrives during a turn to that turn, like a steer.
      if (outputSchema) {
        throw new ParamsError('outputSchema', 'belongs to a new turn; this thread has a turn running.');
      }
      await this.deliverIntoTurn(thread, input);
      return { turn: startedTurn(open.id, open.startedAtMs) };
    }
    const release = thread.hold();
    try {
      const sent = await withDeadline(
        thread.session.send(input, { mode: 'queue', ...(outputSchema ? { outputSchema } : {}) }),
        this.requestTimeoutMs,
        'send',
      );
      // The pump may not have seen the turn start yet; an interrupt may come before it does.
      if (thread.state.turn?.id !== sent.turnId && thread.state.lastTurnId !== sent.turnId) {
        thread.unstarted.add(sent.turnId);
      }
      return { turn: startedTurn(sent.turnId, Date.now()) };
    } finally {
      release();
    }
  }

  /** Input for the running Codex turn: steered where the harness can, else run next inside the same turn. */
  private async deliverIntoTurn(thread: BridgeThread, input: TurnInput): Promise<string> {
    const codexTurnId = beginSteer(thread.state);
    if (!codexTurnId) throw new RpcError(RPC.invalidRequest, 'no active turn to steer', { threadId: thread.id });
    const release = thread.hold();
    let delivered: SendResult | undefined;
    try {
      delivered = await withDeadline(thread.session.send(input, { mode: 'steer' }), this.requestTimeoutMs, 'send');
      return codexTurnId;
    } finally {
      thread.emit(endSteer(thread.state, codexTurnId, delivered, Date.now()));
      release();
    }
  }

  private async steer(params: Record<string, unknown>): Promise<TurnSteerResponse> {
    const thread = this.threadFor(requiredString(params, 'threadId'));
    const expected = requiredString(params, 'expectedTurnId');
    const input = turnInputOf(params.input);
    const open = thread.state.turn;
    if (!open) throw new RpcError(RPC.invalidRequest, 'no active turn to steer', { threadId: thread.id });
    if (open.id !== expected) {
      // Codex 0.169.0's wording, which clients match to fall back to a new turn.
      throw new RpcError(RPC.invalidRequest, `expected active turn id \`${expected}\` but found \`${open.id}\``, {
        threadId: thread.id,
      });
    }
    return { turnId: await this.deliverIntoTurn(thread, input) };
  }

  private async interrupt(params: Record<string, unknown>): Promise<Record<string, never>> {
    const thread = this.threadFor(requiredString(params, 'threadId'));
    const turnId = requiredString(params, 'turnId');
    if (!requestInterrupt(thread.state, turnId)) {
      if (!thread.unstarted.has(turnId)) {
        throw new RpcError(RPC.invalidRequest, `no active turn ${turnId} in thread ${thread.id}`, { turnId });
      }
      thread.interruptOnStart.add(turnId);
    }
    await thread.interruptNow();
    return {};
  }

  // ---- catalog and history ----

  private async listModels(): Promise<{ data: ReportedModel[]; nextCursor: null }> {
    if (!this.harness.models) return { data: [], nextCursor: null };
    const [models, matrix] = await Promise.all([
      withDeadline(this.harness.models(), this.requestTimeoutMs, 'models'),
      this.capabilities(),
    ]);
    const images = isImplemented(matrix, 'images');
    return { data: models.map((model) => modelOf(model, images, this.options.defaults?.effort)), nextCursor: null };
  }

  private async listThreads(params: Record<string, unknown>): Promise<ThreadListResponse> {
    if (!this.harness.listSessions) return { data: [], nextCursor: null, backwardsCursor: null };
    const cwd = typeof params.cwd === 'string' ? params.cwd : undefined;
    const sessions = await withDeadline(
      this.harness.listSessions(cwd ? { cwd } : {}),
      this.requestTimeoutMs,
      'listSessions',
    );
    const data = sessions.map((summary): Thread => {
      const updated = Math.floor((summary.updatedAt ?? 0) / 1000);
      return {
        id: summary.nativeSessionId,
        sessionId: summary.nativeSessionId,
        forkedFromId: null,
        parentThreadId: null,
        preview: summary.title ?? '',
        ephemeral: false,
        section: null,
        sectionEnteredAt: null,
        projectId: null,
        historyMode: 'paginated',
        modelProvider: this.harness.id,
        model: null,
        reasoningEffort: null,
        createdAt: updated,
        updatedAt: updated,
        recencyAt: summary.updatedAt !== undefined ? updated : null,
        status: this.threads.has(summary.nativeSessionId) ? { type: 'idle' } : { type: 'notLoaded' },
        path: null,
        cwd: summary.cwd ?? '',
        cliVersion: '',
        originator: null,
        source: 'unknown',
        threadSource: null,
        agentNickname: null,
        agentRole: null,
        gitInfo: null,
        name: summary.title ?? null,
        turns: [],
      };
    });
    return { data, nextCursor: null, backwardsCursor: null };
  }

  private async listItems(params: Record<string, unknown>): Promise<ThreadItemsListResponse> {
    const threadId = requiredString(params, 'threadId');
    if (!this.harness.history) {
      throw new ReinsError('unsupported_capability', `The ${this.harness.id} harness keeps no readable history.`);
    }
    const nativeId = this.nativeIds.get(threadId) ?? this.threads.get(threadId)?.session.nativeSessionId ?? threadId;
    const cwd = this.threads.get(threadId)?.state.cwd ?? this.defaults().cwd;
    const items = await withDeadline(this.harness.history(nativeId, { cwd }), this.requestTimeoutMs, 'history');
    const turns = historyTurns(items, { threadId, cwd });
    const data = turns.flatMap((turn) =>
      turn.items.map((item) => ({ turnId: turn.id, item, startedAtMs: null, completedAtMs: null })),
    );
    return { data, nextCursor: null, backwardsCursor: null };
  }
}

/** A model entry with the default effort left null when the harness did not say (absent is not zero). */
export type ReportedModel = Omit<Model, 'defaultReasoningEffort'> & { defaultReasoningEffort: string | null };

function modelOf(model: ModelInfo, images: boolean, bridgeEffort: Effort | undefined): ReportedModel {
  const efforts = model.efforts ?? [];
  return {
    id: model.id,
    model: model.id,
    upgrade: null,
    upgradeInfo: null,
    availabilityNux: null,
    displayName: model.displayName ?? model.id,
    description: '',
    modelSpecialty: null,
    hidden: false,
    supportedReasoningEfforts: efforts.map((effort) => ({ reasoningEffort: effort, description: '' })),
    // The effort the bridge applies to every thread is the default it knows; otherwise none is known.
    defaultReasoningEffort: bridgeEffort ?? null,
    inputModalities: images ? ['text', 'image'] : ['text'],
    supportsPersonality: false,
    multiAgentVersion: null,
    additionalSpeedTiers: [],
    serviceTiers: [],
    defaultServiceTier: null,
    availableAccessPrograms: null,
    isDefault: model.isDefault ?? false,
  };
}
