// One ACP agent process and its client connection. The process is a HarnessProcess (own process
// group, close ladder); the SDK's `client()` app speaks JSON-RPC over it through a message-level
// Stream built from the process's stdout lines and stdin writes, so the SDK never needs raw pipes.
// The connection initializes once, authenticates when asked to (handshake.ts), turns failed requests
// into ReinsErrors (rpc-errors.ts), and routes every agent -> client message to the session it names
// (session-router.ts); one process can serve many sessions.
//
// All inbound methods go through the SDK's "*" fallback handlers with raw params: the SDK's typed
// handlers validate params with zod and log-and-drop a notification that fails, and real agents
// send frames a strict schema rejects (claude-agent-acp 0.23.1 sends `"input": null` in commands).
//
// Nothing an agent sends may throw out of here (docs/architecture/contract.md, principle 8):
// every callback the SDK or the process calls (lines, notifications, requests, the exit) is
// guarded; a session whose handler fails sees the frame as a passthrough (`untranslatable`), and a
// request it fails on is answered with a JSON-RPC error, never left to the SDK's console logging.

import type { AnyMessage } from '@agentclientprotocol/sdk';
import { type ClientConnection, client, RequestError, type Stream } from '@agentclientprotocol/sdk';
import { type HarnessId, isRecord, type PassthroughReason, ReinsError } from '@reins/core';
import { type Confinement, type FrameTap, HarnessProcess } from '../runtime/index.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import { authenticate, type HandshakeOptions, initializeAgent } from './handshake.js';
import { rpcFailure } from './rpc-errors.js';
import { SessionRouter } from './session-router.js';
import { type IdleState, V2Updates, v1AnswerOf, v1InitializeOf, v1PermissionParamsOf } from './v2.js';
import type { InitializeResponse, SessionUpdate } from './wire.js';

export interface AcpLaunch {
  harness: HarnessId;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** For messages: 'gemini --acp'. */
  label: string;
  tap?: FrameTap;
  confine?: Confinement; // posture workspace: Reins' confinement (runtime/confinement.ts)
}

/** What a session registers to receive the traffic that names it. */
export interface SessionSink {
  update(update: SessionUpdate, frame: unknown, at: number): void;
  /** Agent -> client requests for this session (permission, fs, extensions). */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /**
   * Extension notifications, frames that are not JSON-RPC (`unparsable`), and frames a handler
   * failed on (`untranslatable`).
   */
  passthrough(frame: unknown, method: string | undefined, at: number, reason?: PassthroughReason): void;
  /** Something the session should hear about that is no frame (a skipped over-long line). */
  warn(message: string, data?: Record<string, unknown>): void;
  /** The process ended or the connection broke. */
  ended(error: ReinsError): void;
}

/** Runs a callback that must not throw into the SDK or the process; a throw is handed to `fallback`. */
function guarded(run: () => void, fallback?: (error: unknown) => void): void {
  try {
    run();
  } catch (error) {
    try {
      fallback?.(error);
    } catch {
      // a fallback that throws as well has nowhere left to report to
    }
  }
}

/**
 * What the connection needs of the agent's process: its stdout lines, its stdin, how it ended. A
 * HarnessProcess is one; unit tests inject an in-memory agent (no process).
 */
export type AcpTransport = Pick<
  HarnessProcess,
  'onLine' | 'onFault' | 'writeLine' | 'exited' | 'exitStatus' | 'describeExit' | 'close'
>;

export interface ConnectOptions extends HandshakeOptions {
  requestTimeoutMs: number;
}

export class AcpConnection {
  initializeResponse: InitializeResponse | undefined;
  private readonly router = new SessionRouter<SessionSink>();
  private readonly endListeners = new Set<(error: ReinsError) => void>();
  private connection!: ClientConnection;
  private endedWith: ReinsError | undefined;
  /** Ids of the requests Reins sent that have no answer yet. */
  private readonly outgoing = new Set<string | number>();
  private closing: Promise<void> | undefined;
  /** Set when the agent answered initialize with protocol version 2. */
  private v2: V2Updates | undefined;
  /** Per session, the prompts waiting for the idle state that ends their turn (v2). */
  private readonly idleWaiters = new Map<string, ((idle: IdleState) => void)[]>();
  private permissionRequests = 0;

  private constructor(
    readonly process: AcpTransport,
    readonly launch: Pick<AcpLaunch, 'harness' | 'label'>,
    private readonly options: ConnectOptions,
  ) {}

  /** Spawns the agent and runs initialize (and authenticate when configured). */
  static async open(launch: AcpLaunch, options: ConnectOptions): Promise<AcpConnection> {
    const child = await HarnessProcess.start({
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      label: launch.label,
      harness: launch.harness,
      ...(launch.tap ? { tap: launch.tap } : {}),
      ...(launch.confine ? { confine: launch.confine } : {}),
    });
    return AcpConnection.over(child, launch, options);
  }

  /** A connection over a running transport (the agent's process, or an in-memory one in unit tests). */
  static async over(
    transport: AcpTransport,
    launch: Pick<AcpLaunch, 'harness' | 'label'>,
    options: ConnectOptions,
  ): Promise<AcpConnection> {
    const connection = new AcpConnection(transport, launch, options);
    connection.connect();
    try {
      await connection.initialize();
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  get ended(): ReinsError | undefined {
    return this.endedWith;
  }

  get sessionCount(): number {
    return this.router.size;
  }

  /** Frames no session could be named for (of a session that left, or lines naming none on a shared process). */
  get droppedFrames(): number {
    return this.router.dropped;
  }

  /** Whether a session on this connection holds the native session id. */
  holds(sessionId: string): boolean {
    return this.router.holds(sessionId);
  }

  private connect(): void {
    const app = client({ name: 'reins' })
      .onRequest('*', ({ method, params, signal }) => this.serve(method, params, signal))
      .onNotification('*', ({ method, params }) => guarded(() => this.notification(method, params)));
    this.connection = app.connect(this.stream());
    void this.process.exited.then(() => {
      const error = new ReinsError('process_exited', this.process.describeExit(), {
        harness: this.launch.harness,
        data: { exitCode: this.process.exitStatus?.code, signal: this.process.exitStatus?.signal },
      });
      this.end(error);
    });
  }

  /** A message-level Stream over the child's lines: one JSON message per line each way. */
  private stream(): Stream {
    let open = true;
    const readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.process.onLine((line) => {
          if (!open || line.trim() === '') return;
          const parsed = parseHarnessLine(line);
          if (!parsed.parsed) {
            this.stray({ stdout: parsed.shown });
            return;
          }
          const message = parsed.value;
          if (!isRecord(message) || (message.method === undefined && message.id === undefined)) {
            this.stray(message);
            return;
          }
          if (this.v2 && message.method === 'session/update' && message.id === undefined) {
            // v2 updates skip the SDK's v1 validation (their kinds are not v1's): translated here.
            guarded(() => this.notification('session/update', message.params));
            return;
          }
          if (this.v2 && message.method === 'session/request_permission' && isRecord(message.params)) {
            message.params = v1PermissionParamsOf(message.params, ++this.permissionRequests);
          }
          if (message.method === undefined && !this.outgoing.delete(message.id as string | number)) {
            // An answer to no request Reins sent (the SDK would only log it to the console).
            this.stray(message, 'unknown');
            return;
          }
          try {
            controller.enqueue(message as AnyMessage);
          } catch {
            open = false;
          }
        });
        this.process.onFault((fault) => {
          if (fault.kind !== 'oversize_line') return;
          const message = `${this.launch.label} wrote a ${fault.bytes}-byte line, over Reins' limit; it was skipped.`;
          for (const sink of this.router.all) guarded(() => sink.warn(message, { bytes: fault.bytes }));
        });
        void this.process.exited.then(() => {
          // stdout may still hold the last lines when 'exit' fires; let them through first.
          setTimeout(() => {
            open = false;
            try {
              controller.close();
            } catch {
              // already closed: the connection was cancelled first
            }
          }, 50);
        });
      },
    });
    const writable = new WritableStream<AnyMessage>({
      write: (message) => {
        if ('method' in message && 'id' in message && message.id !== null) this.outgoing.add(message.id);
        if (!this.process.writeLine(JSON.stringify(message))) {
          throw new ReinsError('process_exited', `${this.launch.label} is gone: ${this.process.describeExit()}`, {
            harness: this.launch.harness,
          });
        }
      },
    });
    return { readable, writable };
  }

  /** The handshake (handshake.ts); an agent asked for v2 that chose v1 is not authenticated, as before. */
  private async initialize(): Promise<void> {
    const request = <T>(method: string, params: unknown) => this.request<T>(method, params);
    const { answer, v2 } = await initializeAgent(request, this.options);
    if (v2) {
      this.v2 = new V2Updates();
      this.initializeResponse = v1InitializeOf(answer);
      return;
    }
    this.initializeResponse = answer as unknown as InitializeResponse;
    if (this.options.protocolVersion === 2) return;
    await authenticate(request, this.initializeResponse, this.options, this.launch);
  }

  /** The auth methods the agent listed in initialize. */
  get authMethods(): { id: string; name: string; description?: string | null }[] {
    return (this.initializeResponse?.authMethods ?? []).map((method) => ({
      id: method.id,
      name: method.name,
      ...(method.description ? { description: method.description } : {}),
    }));
  }

  /** Sends a request with a deadline (0 = none); every failure becomes a ReinsError. */
  async request<T>(method: string, params: unknown, options: { timeoutMs?: number } = {}): Promise<T> {
    if (this.v2 && method !== 'initialize') return (await this.requestV2(method, params, options)) as T;
    return this.send<T>(method, params, options);
  }

  /** A v1 request in v2: load is resume with replay, a prompt's answer is the idle state that ends it. */
  private async requestV2(method: string, params: unknown, options: { timeoutMs?: number }): Promise<unknown> {
    const record = isRecord(params) ? params : {};
    if (method === 'session/load') {
      return v1AnswerOf(await this.send('session/resume', { ...record, replayFrom: { type: 'start' } }, options));
    }
    if (method === 'session/set_config_option') {
      const type = typeof record.value === 'boolean' ? 'boolean' : 'id';
      return v1AnswerOf(await this.send(method, { ...record, type }, options));
    }
    if (method !== 'session/prompt') return v1AnswerOf(await this.send(method, params, options));
    const sessionId = String(record.sessionId);
    let stop: () => void = () => {};
    const idle = new Promise<IdleState>((resolve, reject) => {
      this.idleWaiters.set(sessionId, [...(this.idleWaiters.get(sessionId) ?? []), resolve]);
      const unlisten = this.onEnd(reject);
      stop = () => void unlisten();
    });
    try {
      await this.send(method, params, options);
    } catch (error) {
      this.idleWaiters.get(sessionId)?.pop();
      stop();
      throw error;
    }
    const ended = await idle.finally(stop);
    if (ended.error) {
      const { code, message, data } = ended.error;
      throw this.toReinsError(method, new RequestError(code, message, data), undefined, 0);
    }
    return { stopReason: ended.stopReason };
  }

  private async send<T>(method: string, params: unknown, options: { timeoutMs?: number } = {}): Promise<T> {
    if (this.endedWith) throw this.endedWith;
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    const signal = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    try {
      return (await this.connection.agent.request(
        method,
        params,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      )) as T;
    } catch (error) {
      throw this.toReinsError(method, error, signal, timeoutMs);
    }
  }

  notify(method: string, params: unknown): void {
    if (this.endedWith) return;
    void this.connection.agent.notify(method, params).catch(() => {});
  }

  private toReinsError(method: string, error: unknown, signal: AbortSignal | undefined, timeoutMs: number): ReinsError {
    if (ReinsError.isInstance(error)) return error;
    if (this.endedWith) return this.endedWith;
    const { harness, label } = this.launch;
    return rpcFailure(method, error, { harness, label, authMethods: this.authMethods, signal, timeoutMs });
  }

  register(sessionId: string, sink: SessionSink): void {
    for (const deliver of this.router.register(sessionId, sink)) deliver(sink);
  }

  unregister(sessionId: string): void {
    this.router.unregister(sessionId);
  }

  onEnd(listener: (error: ReinsError) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  private notification(method: string, params: unknown): void {
    const at = Date.now();
    const frame = { jsonrpc: '2.0', method, params };
    const sessionId = isRecord(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    if (method === 'session/update' && sessionId && isRecord(params) && isRecord(params.update)) {
      const translated = this.v2
        ? this.v2.translate(params.update)
        : { updates: [params.update as unknown as SessionUpdate] };
      for (const update of translated.updates) {
        this.router.route(sessionId, (sink) =>
          guarded(
            () => sink.update(update, frame, at),
            () => sink.passthrough(frame, method, at, 'untranslatable'),
          ),
        );
      }
      // v2: the idle state ends the session's oldest waiting prompt (after the updates it follows).
      if (translated.idle) this.idleWaiters.get(sessionId)?.shift()?.(translated.idle);
      return;
    }
    // Extension notifications (qwen/notify/session/model-update, ...) and session/update frames
    // without an update: passthrough to the session they name (held or dropped like an update).
    const reason = method === 'session/update' ? 'unparsable' : undefined;
    if (sessionId) {
      this.router.route(sessionId, (sink) => guarded(() => sink.passthrough(frame, method, at, reason)));
      return;
    }
    if (method === 'session/update') {
      // A session/update naming no session may be any session's.
      const owner = this.router.strayOwner();
      if (owner) guarded(() => owner.passthrough(frame, method, at, reason));
      return;
    }
    // An extension notification naming no session is about the process: every session sees it.
    for (const sink of this.router.all) guarded(() => sink.passthrough(frame, method, at, reason));
  }

  private async serve(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const record = isRecord(params) ? params : {};
    const sessionId = typeof record.sessionId === 'string' ? record.sessionId : undefined;
    // A request naming no session goes to the only session a never-shared process has; a request
    // no session can be named for is refused (and counted), never shown to another session.
    const sink = sessionId ? this.router.sink(sessionId) : this.router.strayOwner();
    const frame = { jsonrpc: '2.0', method, params };
    if (!sink) {
      if (sessionId) this.router.dropped++;
      throw RequestError.methodNotFound(method);
    }
    try {
      return await sink.request(method, record, signal);
    } catch (error) {
      // A deliberate JSON-RPC answer (fs refused a path, method not found) goes back as it is;
      // anything else is this session's fault: shown as passthrough, answered as internal error.
      if (error instanceof RequestError) throw error;
      guarded(() => sink.passthrough(frame, method, Date.now(), 'untranslatable'));
      throw RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
    }
  }

  private stray(frame: unknown, reason: PassthroughReason = 'unparsable'): void {
    const at = Date.now();
    const owner = this.router.strayOwner();
    if (owner) guarded(() => owner.passthrough(frame, undefined, at, reason));
  }

  private end(error: ReinsError): void {
    if (this.endedWith) return;
    this.endedWith = error;
    guarded(() => this.connection.close(error));
    for (const sink of this.router.all) guarded(() => sink.ended(error));
    for (const listener of [...this.endListeners]) guarded(() => listener(error));
  }

  /** Ends the process (stdin end, SIGTERM, SIGKILL on the group); idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const error = new ReinsError('process_exited', `${this.launch.label} was closed.`, {
        harness: this.launch.harness,
      });
      this.connection?.close(error);
      await this.process.close();
      this.end(error);
    })();
    return this.closing;
  }
}
