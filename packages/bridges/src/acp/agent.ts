// The ACP agent side of the bridge: one ACP connection in front of one Reins harness. Each ACP
// session is one Reins session; a pump per session turns its events into `session/update`
// notifications (translate.ts) and settles `session/prompt` requests with their turn's terminal.
// The transport is injected (any SDK Stream), so this runs over stdio (stdio.ts) or in memory.
//
// Session ids: the ACP session id IS the harness's native session id whenever the harness knows it
// when the session is created (every adapter so far does: Codex thread id, Claude Code's preset
// uuid, ACP agents' own ids), so `session/load` of that id works from any bridge process. A harness
// that learns its id only later gets a bridge-made `reins-<uuid>` instead, because an ACP session id
// cannot change; the native id is then sent in `session_info_update._meta.reins.nativeSessionId`,
// and this bridge process maps the made-up id to it for `session/load`.
import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import {
  type AgentApp,
  type AgentConnection,
  agent,
  RequestError,
  type Stream,
} from '@agentclientprotocol/sdk/unstable';
import {
  type CapabilityMatrix,
  type Effort,
  type Harness,
  type ModelInfo,
  type PermissionDecision,
  type PermissionRequestedEvent,
  type Posture,
  ReinsError,
  type Session,
  type SessionSpec,
  type TurnCompletedEvent,
} from '@reins/core';
import {
  DEFAULT_PERMISSION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  isImplemented,
  withDeadline,
} from '../lifecycle.js';
import { decisionOf, mcpServersOf, promptInput, type SettingRequest, settingRequestOf } from './requests.js';
import {
  acpErrorOf,
  type BridgeState,
  createBridgeState,
  historyUpdates,
  permissionRequestOf,
  promptAnswer,
  takeConfigOptions,
  translateEvent,
} from './translate.js';
import {
  type InitializeResponse,
  type McpServer,
  PROTOCOL_VERSION,
  type PromptResponse,
  type RequestPermissionResponse,
  RPC,
  type SessionConfigOption,
  type SessionUpdate,
} from './wire.js';

export interface AcpBridgeOptions {
  harness: Harness;
  /** Applied to every session the client opens (ACP's session/new has no such fields). */
  defaults?: { model?: string; effort?: Effort; posture?: Posture };
  /** Deadline for everything but a prompt's turn (turns run as long as the work takes; cancel ends them). */
  requestTimeoutMs?: number;
  /** How long a permission request waits for the client before it counts as denied. */
  permissionTimeoutMs?: number;
  /** Diagnostics; never stdout, which carries only protocol frames. */
  log?: (message: string) => void;
  version?: string;
}

/** Updates held for a session the client has not been told about yet (bounded). */
const MAX_HELD_UPDATES = 10_000;
/** Terminals of turns nobody waits for yet (send() answers after the turn may have ended). */
const MAX_UNCLAIMED_TERMINALS = 100;

/** Anything a handler throws -> the JSON-RPC error the client gets (Reins errors keep their ErrorInfo). */
function toRequestError(error: unknown, operation: string): RequestError {
  if (error instanceof RequestError) return error;
  const reins = ReinsError.from(error, 'protocol_error', { operation });
  const acp = acpErrorOf(reins.toInfo());
  return new RequestError(acp.code, acp.message, acp.data);
}

/** A setting the harness cannot change is "not available" (-32601), which ACP clients read as such. */
function toSettingError(error: unknown, operation: string): RequestError {
  if (ReinsError.isInstance(error) && error.code === 'unsupported_capability') {
    return new RequestError(RPC.methodNotFound, error.message, error.toInfo());
  }
  return toRequestError(error, operation);
}

interface TurnWaiter {
  resolve: (event: TurnCompletedEvent) => void;
  reject: (error: ReinsError) => void;
}

interface SessionContext {
  connection: () => AgentConnection | undefined;
  permissionTimeoutMs: number;
  log: (message: string) => void;
}

/** One ACP session over one Reins session. */
class BridgeSession {
  readonly state: BridgeState;
  readonly pump: Promise<void>;
  /** Items settled outside any turn (history a resume replayed). */
  replayedItems = 0;
  private announced: boolean;
  private held: SessionUpdate[] = [];
  private outbox: Promise<void> = Promise.resolve();
  private readonly waiters = new Map<string, TurnWaiter>();
  private readonly unclaimed = new Map<string, TurnCompletedEvent>();
  private readonly permissions = new Map<string, AbortController>();
  private ended: ReinsError | undefined;

  constructor(
    readonly acpId: string,
    readonly session: Session,
    state: BridgeState,
    private readonly context: SessionContext,
    options: { announced: boolean },
  ) {
    this.state = state;
    this.announced = options.announced;
    this.pump = this.run();
  }

  /** The client now knows the session id: send what was held (its config options went with the answer). */
  announce(): void {
    if (this.announced) return;
    this.announced = true;
    const held = this.held.filter((update) => update.sessionUpdate !== 'config_option_update');
    this.held = [];
    for (const update of held) void this.send(update);
  }

  /** Queues one update; updates reach the client in the order they were sent. */
  send(update: SessionUpdate): Promise<void> {
    if (!this.announced) {
      if (this.held.length < MAX_HELD_UPDATES) this.held.push(update);
      return Promise.resolve();
    }
    this.outbox = this.outbox.then(() => this.write(update));
    return this.outbox;
  }

  private async write(update: SessionUpdate): Promise<void> {
    const connection = this.context.connection();
    if (!connection || connection.signal.aborted) return;
    try {
      await connection.client.notify('session/update', { sessionId: this.acpId, update });
    } catch (error) {
      if (!connection.signal.aborted) this.context.log(`could not send session/update: ${String(error)}`);
    }
  }

  private async run(): Promise<void> {
    try {
      for await (const event of this.session.events) {
        for (const update of translateEvent(this.state, event)) await this.send(update);
        switch (event.type) {
          case 'item.completed':
            if (event.turnId === null) this.replayedItems++;
            break;
          case 'permission.requested':
            void this.askPermission(event);
            break;
          case 'permission.resolved':
            // The harness withdrew the request or its own deadline passed: stop asking the client.
            if (event.by !== 'client') this.permissions.get(event.requestId)?.abort();
            break;
          case 'turn.completed':
            if (event.turnId) this.settle(event.turnId, event);
            break;
          case 'session.closed':
            this.end(
              event.error
                ? ReinsError.fromInfo(event.error)
                : new ReinsError('process_exited', `The ${event.harness} session was closed (${event.reason}).`),
            );
            break;
          default:
            break;
        }
      }
    } catch (error) {
      this.context.log(`the event stream of session ${this.acpId} failed: ${String(error)}`);
    }
    this.end(new ReinsError('process_exited', `The session ${this.acpId} has ended.`));
  }

  private settle(turnId: string, event: TurnCompletedEvent): void {
    const waiter = this.waiters.get(turnId);
    if (waiter) {
      this.waiters.delete(turnId);
      waiter.resolve(event);
      return;
    }
    if (this.unclaimed.size >= MAX_UNCLAIMED_TERMINALS) {
      const oldest = this.unclaimed.keys().next().value;
      if (oldest !== undefined) this.unclaimed.delete(oldest);
    }
    this.unclaimed.set(turnId, event);
  }

  private end(error: ReinsError): void {
    this.ended ??= error;
    for (const [turnId, waiter] of this.waiters) {
      this.waiters.delete(turnId);
      waiter.reject(this.ended);
    }
    for (const controller of this.permissions.values()) controller.abort();
  }

  /** The terminal of a turn `send` started or queued. */
  waitForTurn(turnId: string): Promise<TurnCompletedEvent> {
    const done = this.unclaimed.get(turnId);
    if (done) {
      this.unclaimed.delete(turnId);
      return Promise.resolve(done);
    }
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiters.set(turnId, { resolve, reject }));
  }

  private async askPermission(event: PermissionRequestedEvent): Promise<void> {
    const connection = this.context.connection();
    const { toolCall, options } = permissionRequestOf(this.state, event);
    const controller = new AbortController();
    this.permissions.set(event.requestId, controller);
    const timer = setTimeout(() => controller.abort(), this.context.permissionTimeoutMs);
    let decision: PermissionDecision = { behavior: 'deny' };
    try {
      if (!connection) throw new Error('no client connection');
      const answer = await connection.client.request<RequestPermissionResponse>(
        'session/request_permission',
        { sessionId: this.acpId, toolCall, options },
        { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
      );
      decision = decisionOf(answer.outcome, event.options);
    } catch (error) {
      // Withdrawn, timed out, or the client failed to answer: the tool does not run.
      if (!controller.signal.aborted) this.context.log(`permission request failed, denying: ${String(error)}`);
    } finally {
      clearTimeout(timer);
      this.permissions.delete(event.requestId);
    }
    if (this.ended) return;
    await this.session.respondToPermission(event.requestId, decision).catch((error: unknown) => {
      // Already settled by the harness (withdrawn or its own deadline): nothing waits for this answer.
      if (!(ReinsError.isInstance(error) && error.code === 'invalid_input')) {
        this.context.log(`respondToPermission failed: ${String(error)}`);
      }
    });
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

export class AcpBridge {
  private readonly sessions = new Map<string, BridgeSession>();
  /** Bridge-made ACP ids -> the native id learned later (see the header). */
  private readonly nativeIds = new Map<string, string>();
  private connection: AgentConnection | undefined;
  private capabilityMatrix: Promise<CapabilityMatrix | undefined> | undefined;
  private modelCatalog: Promise<ModelInfo[] | undefined> | undefined;
  private closing: Promise<void> | undefined;
  private readonly requestTimeoutMs: number;
  private readonly log: (message: string) => void;

  constructor(private readonly options: AcpBridgeOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.log = options.log ?? (() => {});
  }

  get harness(): Harness {
    return this.options.harness;
  }

  /** Open sessions (for diagnostics and tests). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Serves one ACP client over `stream`; closing the stream closes every session. */
  connect(stream: Stream): AgentConnection {
    if (this.connection) throw new Error('An AcpBridge serves one connection.');
    const connection = this.app().connect(stream);
    this.connection = connection;
    void connection.closed.then(() => this.close());
    return connection;
  }

  /** Closes every session (their harness processes end with them); idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const open = [...this.sessions.values()];
      this.sessions.clear();
      await Promise.all(open.map((session) => session.close().catch(() => {})));
      this.connection?.close();
    })();
    return this.closing;
  }

  private app(): AgentApp {
    return agent({ name: 'reins-acp-bridge' })
      .onRequest('initialize', () => this.guard('initialize', () => this.initialize()))
      .onRequest('session/new', ({ params }) =>
        this.guard('session/new', () => this.newSession(params.cwd, params.mcpServers)),
      )
      .onRequest('session/load', ({ params }) =>
        this.guard('session/load', () => this.resumeSession(params.sessionId, params.cwd, params.mcpServers, true)),
      )
      .onRequest('session/resume', ({ params }) =>
        this.guard('session/resume', () =>
          this.resumeSession(params.sessionId, params.cwd, params.mcpServers ?? [], false),
        ),
      )
      .onRequest('session/prompt', ({ params, signal }) =>
        this.guard('session/prompt', () => this.prompt(params.sessionId, params.prompt, signal)),
      )
      .onNotification('session/cancel', ({ params }) => this.cancel(params.sessionId))
      .onRequest('session/set_config_option', ({ params }) =>
        this.guardSetting('session/set_config_option', async () => {
          const session = this.sessionFor(params.sessionId);
          const request = settingRequestOf(params.configId, 'value' in params ? params.value : undefined);
          return { configOptions: await this.applySetting(session, request) };
        }),
      )
      .onRequest('session/set_model', parseSetModel, ({ params }) =>
        // Not in the 2.4.0 schema, but clients that predate config options still send it.
        this.guardSetting('session/set_model', async () => {
          await this.applySetting(this.sessionFor(params.sessionId), { setting: 'model', model: params.modelId });
          return {};
        }),
      )
      .onRequest('session/close', ({ params }) =>
        this.guard('session/close', () => this.closeSession(params.sessionId)),
      );
  }

  private async guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toRequestError(error, operation);
    }
  }

  private async guardSetting<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toSettingError(error, operation);
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

  /** The harness's model list, once per bridge; a harness without one (or that fails) has none. */
  private catalog(): Promise<ModelInfo[] | undefined> {
    this.modelCatalog ??= (async () => {
      if (!this.harness.models) return undefined;
      try {
        return await withDeadline(this.harness.models(), this.requestTimeoutMs, 'models');
      } catch (error) {
        this.log(`the ${this.harness.id} model list is unavailable, so no model option is offered: ${String(error)}`);
        return undefined;
      }
    })();
    return this.modelCatalog;
  }

  private async initialize(): Promise<InitializeResponse> {
    const matrix = await this.capabilities();
    const canResume = isImplemented(matrix, 'resume');
    return {
      // The bridge speaks protocol version 1 only; a client asking for more gets 1 (ACP negotiation).
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: canResume,
        promptCapabilities: { image: isImplemented(matrix, 'images'), audio: false, embeddedContext: false },
        sessionCapabilities: { close: {}, ...(canResume ? { resume: {} } : {}) },
      },
      // The harness authenticates itself (Reins never handles credentials): no auth methods.
      authMethods: [],
      agentInfo: {
        name: 'reins-acp-bridge',
        title: `Reins: ${this.harness.displayName}`,
        version: this.options.version ?? '0.1.0',
      },
    };
  }

  private specFor(cwd: string, mcpServers: McpServer[]): SessionSpec {
    if (!isAbsolute(cwd)) {
      throw new ReinsError('invalid_input', `The session cwd must be an absolute path; got "${cwd}".`, {
        operation: 'session/new',
      });
    }
    const defaults = this.options.defaults ?? {};
    const servers = mcpServersOf(mcpServers);
    return {
      cwd,
      posture: defaults.posture ?? 'bypass',
      ...(defaults.model ? { model: defaults.model } : {}),
      ...(defaults.effort ? { effort: defaults.effort } : {}),
      ...(servers.length > 0 ? { mcpServers: servers } : {}),
    };
  }

  private assertOpen(): void {
    if (this.closing) throw new ReinsError('process_exited', 'The bridge is shutting down.');
  }

  private async open(spec: SessionSpec, acpId: string | undefined, announced: boolean): Promise<BridgeSession> {
    this.assertOpen();
    const catalog = this.catalog();
    const matrix = await this.capabilities();
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
    const id = acpId ?? session.nativeSessionId ?? `reins-${randomUUID()}`;
    const state = createBridgeState({
      effortSwitch: isImplemented(matrix, 'liveEffortSwitch'),
      ...(spec.model ? { model: spec.model } : {}),
      ...(spec.effort ? { effort: spec.effort } : {}),
    });
    const models = await catalog;
    if (models) state.settings.catalog = models;
    const bridged = new BridgeSession(
      id,
      session,
      state,
      {
        connection: () => this.connection,
        permissionTimeoutMs: this.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
        log: this.log,
      },
      { announced },
    );
    this.sessions.set(id, bridged);
    // The session's first events (model, native id, replayed history) are already queued: let the
    // pump take them in before the answer is built from its state.
    await new Promise((resolve) => setImmediate(resolve));
    if (!session.nativeSessionId) this.log(`session ${id}: the harness has no native session id yet`);
    return bridged;
  }

  private async newSession(
    cwd: string,
    mcpServers: McpServer[],
  ): Promise<{ sessionId: string; configOptions: SessionConfigOption[] }> {
    const bridged = await this.open(this.specFor(cwd, mcpServers), undefined, false);
    const configOptions = takeConfigOptions(bridged.state);
    // After the answer is on the wire (it is written before the next macrotask), updates may name the id.
    setImmediate(() => bridged.announce());
    return { sessionId: bridged.acpId, configOptions };
  }

  /** session/load (history replayed as updates before the answer) and session/resume (no replay). */
  private async resumeSession(
    sessionId: string,
    cwd: string,
    mcpServers: McpServer[],
    replay: boolean,
  ): Promise<{ configOptions: SessionConfigOption[] }> {
    const nativeId = this.nativeIds.get(sessionId) ?? sessionId;
    if (sessionId.startsWith('reins-') && nativeId === sessionId) {
      throw new ReinsError(
        'resume_failed',
        `Session ${sessionId} was named by another bridge process before its harness had an id; load it by the native id that bridge reported (session_info_update _meta.reins.nativeSessionId).`,
        { operation: 'session/load' },
      );
    }
    // Loading a session this bridge has open replaces it (one Reins session per ACP id).
    await this.closeSession(sessionId);
    const spec: SessionSpec = { ...this.specFor(cwd, mcpServers), resume: { nativeSessionId: nativeId } };
    const bridged = await this.open(spec, sessionId, true);
    if (replay && bridged.replayedItems === 0 && this.harness.history) {
      // The adapter replayed nothing itself (Codex resumes silently): read the stored conversation.
      try {
        const items = await withDeadline(this.harness.history(nativeId, { cwd }), this.requestTimeoutMs, 'history');
        for (const update of historyUpdates(items)) await bridged.send(update);
      } catch (error) {
        this.log(`session ${sessionId} resumed, but its history could not be replayed: ${String(error)}`);
      }
    }
    return { configOptions: takeConfigOptions(bridged.state) };
  }

  private sessionFor(sessionId: string): BridgeSession {
    const session = this.sessions.get(sessionId);
    if (!session) {
      throw new RequestError(RPC.resourceNotFound, `No open session ${sessionId}; create or load it first.`, {
        sessionId,
      });
    }
    return session;
  }

  private async prompt(
    sessionId: string,
    prompt: Parameters<typeof promptInput>[0],
    signal: AbortSignal,
  ): Promise<PromptResponse> {
    const bridged = this.sessionFor(sessionId);
    const input = promptInput(prompt);
    const sent = await withDeadline(bridged.session.send(input), this.requestTimeoutMs, 'send');
    // A client that abandons the request ($/cancel_request) wants the turn stopped, like session/cancel.
    const onAbort = () => void bridged.session.interrupt().catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    let terminal: TurnCompletedEvent;
    try {
      terminal = await bridged.waitForTurn(sent.turnId);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    const native = bridged.state.nativeSessionId ?? bridged.session.nativeSessionId;
    if (native && native !== sessionId) this.nativeIds.set(sessionId, native);
    const answer = promptAnswer(terminal);
    if (!answer.ok) throw new RequestError(answer.error.code, answer.error.message, answer.error.data);
    return answer.response;
  }

  private cancel(sessionId: string): void {
    const bridged = this.sessions.get(sessionId);
    if (!bridged) return;
    withDeadline(bridged.session.interrupt(), this.requestTimeoutMs, 'interrupt').catch((error: unknown) =>
      this.log(`interrupt of session ${sessionId} failed: ${String(error)}`),
    );
  }

  private async applySetting(bridged: BridgeSession, request: SettingRequest): Promise<SessionConfigOption[]> {
    if (request.setting === 'model') {
      await withDeadline(bridged.session.setModel(request.model), this.requestTimeoutMs, 'setModel');
      bridged.state.settings.model = request.model;
    } else {
      await withDeadline(bridged.session.setEffort(request.effort), this.requestTimeoutMs, 'setEffort');
      bridged.state.settings.effort = request.effort;
    }
    return takeConfigOptions(bridged.state);
  }

  private async closeSession(sessionId: string): Promise<Record<string, never>> {
    const bridged = this.sessions.get(sessionId);
    if (!bridged) return {};
    this.sessions.delete(sessionId);
    await withDeadline(bridged.close(), this.requestTimeoutMs, 'close');
    return {};
  }
}

/** Params of the legacy session/set_model, checked by hand (it has no schema in the SDK). */
function parseSetModel(params: unknown): { sessionId: string; modelId: string } {
  const record = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  if (typeof record.sessionId !== 'string' || typeof record.modelId !== 'string' || record.modelId === '') {
    throw RequestError.invalidParams(undefined, 'session/set_model needs a sessionId and a modelId.');
  }
  return { sessionId: record.sessionId, modelId: record.modelId };
}
