// One client connection: the JSON-RPC boundary of the daemon. Every frame is checked here (JSON-RPC
// shape, then the method's params with the protocol's zod schema); nothing runs before a successful
// `initialize` with the token, and until then a frame may be at most 64 KiB; every failure goes
// back as a JSON-RPC error carrying ErrorInfo. The protocol version is negotiated at initialize:
// a client that asks for none is a version 1 client and gets version 1 answers and no version 2
// notifications. A version 2 client may ask for `eventBatches` at initialize (its answer echoes
// what was granted): its replays then go as session/events frames (event-batch.ts); a client that
// does not ask gets exactly the frames it always got. An event too big for one frame goes in
// session/eventPart frames to a client granted `eventParts`, else shrunk (event-parts.ts). A client
// granted `omitNative` gets every event without its native frame (published-event.ts).
// Everything sent (answers, events, notifications) counts against one buffer cap: a client that
// does not read is dropped (1013) instead of growing the daemon.
import { timingSafeEqual } from 'node:crypto';
import { type ErrorCode, type HarnessId, ReinsError } from '@reins/core';
import {
  CLOSE_CODES,
  describeInvalidParams,
  type HarnessListing,
  isMethodName,
  METHOD_NAMES,
  METHODS,
  type MethodName,
  NATIVE_FRAMES_PAGE,
  negotiateCapabilities,
  negotiateProtocolVersion,
  type ParamsOf,
  type ProtocolVersion,
  type RequestId,
  type ResultOf,
  RPC_ERROR,
  RpcIncomingSchema,
  rpcErrorNumber,
  STATUS_SNAPSHOT,
  type StatusSnapshotParams,
  v1Status,
} from '@reins/protocol';
import type { RawData, WebSocket } from 'ws';
import { backendHandlers } from './backend-handlers.js';
import type { Logger } from './logger.js';
import { checkpointsOf } from './session-checkpoints.js';
import type { SessionDirectory } from './session-directory.js';
import type { PublishedEvent } from './session-log.js';
import { OPEN, SocketOutput } from './socket-output.js';
import { Subscription } from './subscription.js';
import type { UiBackend } from './ui-backend.js';

/** What a connection needs of the daemon. */
export interface DaemonContext {
  readonly token: string;
  readonly reinsVersion: string;
  readonly harnesses: HarnessId[];
  readonly log: Logger;
  readonly initializeTimeoutMs: number;
  /** A connection whose socket holds more unsent bytes than this is dropped (it can resume). */
  readonly maxBufferedBytes: number;
  /** Largest frame after initialize. */
  readonly maxPayloadBytes: number;
  /** Requests one connection may have in progress at once. */
  readonly maxRequestsInFlight: number;
  readonly sessions: SessionDirectory;
  listHarnesses(): Promise<HarnessListing[]>;
  snapshot(): StatusSnapshotParams;
  /** The catalog, harness conversations, sign-in, fork and MCP status; absent: those are unsupported_capability. */
  readonly backend?: UiBackend;
}

interface Reply<R> {
  result: R;
  /** Runs right after the answer was written, in the same tick (subscribe's replay, the first snapshot). */
  afterSend?: () => void;
}
type Handler<M extends MethodName> = (params: ParamsOf<M>) => Reply<ResultOf<M>> | Promise<Reply<ResultOf<M>>>;

/** A connection told to go (1013) that does not close its side in this long is cut. */
const DROP_GRACE_MS = 5_000;

function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Lets an authenticated connection send frames up to `bytes`. ws 8.23.0 reads the limit from the
 * receiver's `_maxPayload` at every frame header; the WebSocketServer's `maxPayload` (the
 * pre-initialize 64 KiB) only seeds it. connection tests prove both limits, so a ws upgrade that
 * moves the field fails them.
 */
function raiseFrameLimit(socket: WebSocket, bytes: number): void {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
  if (!receiver || typeof receiver._maxPayload !== 'number') {
    throw new ReinsError(
      'protocol_error',
      'This ws version keeps its frame limit elsewhere: the daemon cannot raise it after initialize.',
    );
  }
  receiver._maxPayload = bytes;
}

let connectionCounter = 0;

export class DaemonConnection {
  readonly label = `c${++connectionCounter}`;
  private authenticated = false;
  private version: ProtocolVersion = 1;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly initializeTimer: ReturnType<typeof setTimeout>;
  private readonly handlers: { [M in MethodName]: Handler<M> };
  private inFlight = 0;
  private readonly output: SocketOutput;
  /** Resolves when the socket closed. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    private readonly context: DaemonContext,
  ) {
    this.output = new SocketOutput(socket, context.maxBufferedBytes, () => this.dropSlowConsumer());
    this.handlers = this.makeHandlers();
    this.initializeTimer = setTimeout(() => {
      if (this.authenticated) return;
      context.log.info('connection closed: no initialize in time', { connection: this.label });
      this.output.close(CLOSE_CODES.policy, 'auth_required: initialize was not called in time');
    }, context.initializeTimeoutMs);
    this.closed = new Promise((resolve) => {
      socket.on('close', (code) => {
        clearTimeout(this.initializeTimer);
        for (const subscription of this.subscriptions.values()) subscription.stop();
        this.subscriptions.clear();
        this.output.closed();
        context.log.info('connection closed', { connection: this.label, code });
        resolve();
      });
    });
    socket.on('message', (data, isBinary) => {
      void this.receive(data, isBinary);
    });
    socket.on('error', (error) =>
      context.log.warn('connection error', { connection: this.label, error: error.message }),
    );
  }

  get isAuthenticated(): boolean {
    return this.authenticated;
  }

  /** Closes the socket (daemon shutdown); `terminate` when it does not close in time. */
  close(code: number, reason: string): void {
    if (this.socket.readyState <= OPEN) this.output.close(code, reason);
  }

  terminate(): void {
    this.socket.terminate();
  }

  /** A daemon notification (status/snapshot, sessions/changed): version 2 connections only. */
  notify(method: string, params: unknown): void {
    if (!this.authenticated || this.version < 2) return;
    this.sendText(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  private async receive(data: RawData, isBinary: boolean): Promise<void> {
    if (this.output.dropping) return;
    if (isBinary) {
      return this.sendError(
        null,
        RPC_ERROR.invalidRequest,
        'invalid_input',
        'Send JSON-RPC as text frames, not binary.',
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return this.sendError(null, RPC_ERROR.parseError, 'invalid_input', 'The frame is not JSON.');
    }
    if (Array.isArray(message)) {
      return this.sendError(
        null,
        RPC_ERROR.invalidRequest,
        'invalid_input',
        'JSON-RPC batches are not supported: send one message per frame.',
      );
    }
    const parsed = RpcIncomingSchema.safeParse(message);
    if (!parsed.success) {
      return this.sendError(
        idOf(message),
        RPC_ERROR.invalidRequest,
        'invalid_input',
        'The frame is not a JSON-RPC 2.0 request: it needs "jsonrpc": "2.0", an "id" and a "method".',
      );
    }
    const { id, method, params } = parsed.data;
    if (id === undefined) return; // a notification: this protocol defines none from clients
    if (!this.authenticated && method !== 'initialize') {
      return this.sendError(
        id,
        RPC_ERROR.authRequired,
        'auth_required',
        `Call initialize with the daemon's token before ${method}.`,
      );
    }
    if (!isMethodName(method)) {
      return this.sendError(
        id,
        RPC_ERROR.methodNotFound,
        'invalid_input',
        `Unknown method "${method}". Methods: ${METHOD_NAMES.join(', ')}.`,
      );
    }
    const checked = METHODS[method].params.safeParse(params);
    if (!checked.success) {
      return this.sendError(id, RPC_ERROR.invalidParams, 'invalid_input', describeInvalidParams(checked.error, method));
    }
    if (this.inFlight >= this.context.maxRequestsInFlight) {
      return this.sendError(
        id,
        RPC_ERROR.invalidRequest,
        'invalid_input',
        `Too many requests in progress on this connection (${this.context.maxRequestsInFlight}): wait for answers before sending more.`,
      );
    }
    this.inFlight++;
    this.context.log.debug('request', { connection: this.label, method });
    try {
      // Cluster gateways bring the session's view up to date first; the local daemon has no hook.
      const target = checked.data as { sessionId?: unknown; afterSeq?: unknown } | undefined;
      if (this.context.sessions.prepare && typeof target?.sessionId === 'string') {
        await this.context.sessions.prepare(
          target.sessionId,
          typeof target.afterSeq === 'number' ? target.afterSeq : undefined,
        );
      }
      const handler = this.handlers[method] as Handler<MethodName>;
      const pending = handler(checked.data as ParamsOf<MethodName>);
      // A synchronous handler answers in this very tick (subscribe relies on it).
      const reply = pending instanceof Promise ? await pending : pending;
      this.sendText(JSON.stringify({ jsonrpc: '2.0', id, result: reply.result }));
      reply.afterSend?.();
    } catch (error) {
      const reins = ReinsError.from(error, 'protocol_error', { operation: method });
      if (!ReinsError.isInstance(error)) {
        this.context.log.error('request failed unexpectedly', { connection: this.label, method, error: reins.message });
      }
      this.sendError(id, rpcErrorNumber(reins.code), reins.code, reins.message, reins);
    } finally {
      this.inFlight--;
    }
  }

  private makeHandlers(): { [M in MethodName]: Handler<M> } {
    const context = this.context;
    const sessions = context.sessions;
    return {
      initialize: (params) => {
        if (this.authenticated) throw new ReinsError('invalid_input', 'This connection is already initialized.');
        if (!tokensMatch(params.token, context.token)) {
          context.log.warn('initialize refused: wrong token', { connection: this.label });
          throw new ReinsError(
            'auth_required',
            "The token is wrong: use the one in the running daemon's daemon.json (in $REINS_HOME, default ~/.reins, on the daemon's machine) or, if it was started with --token-file, that file's content. A daemon without --token-file makes a new token on every start.",
          );
        }
        raiseFrameLimit(this.socket, context.maxPayloadBytes);
        this.authenticated = true;
        this.version = negotiateProtocolVersion(params.protocolVersion);
        const granted = negotiateCapabilities(this.version, params.capabilities);
        this.output.batches = granted.eventBatches;
        this.output.parts = granted.eventParts;
        this.output.omitNative = granted.omitNative;
        clearTimeout(this.initializeTimer);
        context.log.info('connection initialized', {
          connection: this.label,
          protocolVersion: this.version,
          eventBatches: this.output.batches,
          eventParts: this.output.parts,
          omitNative: this.output.omitNative,
          client: params.client ? `${params.client.name}/${params.client.version}` : undefined,
        });
        return {
          result: {
            protocolVersion: this.version,
            reinsVersion: context.reinsVersion,
            harnesses: context.harnesses,
            // Only to a client that asked: the answer to one that did not is what it always was.
            ...(params.capabilities !== undefined ? { capabilities: granted } : {}),
          },
          afterSend: () => this.notify(STATUS_SNAPSHOT, context.snapshot()),
        };
      },
      'harness/list': async () => ({ result: await context.listHarnesses() }),
      'session/create': async (params) => {
        if (!context.harnesses.includes(params.harness)) {
          throw new ReinsError(
            'invalid_input',
            `This daemon does not offer the ${params.harness} harness. It offers: ${context.harnesses.join(', ') || 'none'}.`,
            { harness: params.harness },
          );
        }
        const hosted = await sessions.create(params);
        return {
          result: {
            sessionId: hosted.id,
            harness: hosted.harness,
            ...(hosted.nativeSessionId !== undefined ? { nativeSessionId: hosted.nativeSessionId } : {}),
          },
        };
      },
      'session/list': () => ({
        result: sessions
          .list()
          .map((hosted) => (this.version >= 2 ? hosted.listing() : hosted.v1Listing())) as ResultOf<'session/list'>,
      }),
      'session/subscribe': (params) => {
        const hosted = sessions.get(params.sessionId);
        const afterSeq = params.afterSeq ?? 0;
        if (afterSeq > hosted.lastSeq) {
          throw new ReinsError(
            'invalid_input',
            `afterSeq ${afterSeq} is past the newest event of this session (seq ${hosted.lastSeq}).`,
            { data: { afterSeq, lastSeq: hosted.lastSeq } },
          );
        }
        this.subscriptions.get(hosted.id)?.stop();
        const subscription = new Subscription(hosted, afterSeq, this, context.log);
        this.subscriptions.set(hosted.id, subscription);
        const status = this.version >= 2 ? hosted.status : v1Status(hosted.status);
        return {
          result: {
            lastSeq: hosted.lastSeq,
            harness: hosted.harness,
            ...(hosted.nativeSessionId !== undefined ? { nativeSessionId: hosted.nativeSessionId } : {}),
            status,
          } as ResultOf<'session/subscribe'>,
          afterSend: () => subscription.start(),
        };
      },
      'session/unsubscribe': (params) => {
        const hosted = sessions.get(params.sessionId);
        this.subscriptions.get(hosted.id)?.stop();
        this.subscriptions.delete(hosted.id);
        return { result: {} };
      },
      'session/send': async (params) => ({
        result: await sessions.get(params.sessionId).send(params.input, params.options),
      }),
      'session/interrupt': async (params) => {
        await sessions.get(params.sessionId).interrupt();
        return { result: {} };
      },
      'session/setModel': async (params) => ({ result: await sessions.get(params.sessionId).setModel(params.model) }),
      'session/setEffort': async (params) => ({
        result: await sessions.get(params.sessionId).setEffort(params.effort),
      }),
      'session/respondToPermission': async (params) => {
        await sessions.get(params.sessionId).respondToPermission(params.requestId, params.decision);
        return { result: {} };
      },
      'session/close': async (params) => {
        // Answers after every event up to session.closed went out to subscribers.
        await sessions.get(params.sessionId).close();
        return { result: {} };
      },
      'session/delete': async (params) => {
        await sessions.delete(params.sessionId);
        this.subscriptions.get(params.sessionId)?.stop();
        this.subscriptions.delete(params.sessionId);
        return { result: {} };
      },
      'session/nativeFrames': async ({ sessionId, afterSeq, limit }) => {
        const events = await sessions.get(sessionId).readEvents(afterSeq, limit ?? NATIVE_FRAMES_PAGE.default);
        const frames: ResultOf<'session/nativeFrames'>['frames'] = [];
        for (const { seq, event } of events) if (event.native !== undefined) frames.push({ seq, native: event.native });
        return { result: { frames } };
      },
      'session/diff': async ({ sessionId, turnId }) => ({
        result: await checkpointsOf(sessions.get(sessionId), 'session/diff').diff(turnId),
      }),
      'session/compact': async (params) => {
        const session = sessions.get(params.sessionId);
        if (!session.compact)
          throw new ReinsError(
            'unsupported_capability',
            'This daemon serves the session from elsewhere (a cluster gateway) and cannot ask it to compact.',
            { operation: 'session/compact' },
          );
        return { result: await session.compact() };
      },
      'session/revert': async ({ sessionId, turnId, force }) => ({
        result: await checkpointsOf(sessions.get(sessionId), 'session/revert').revert(turnId, force ? { force } : {}),
      }),
      ...backendHandlers(() => context.backend, context.harnesses),
    };
  }

  // ---- EventOutlet (for subscriptions) ------------------------------------------------------------

  sendEvent(sessionId: string, published: PublishedEvent): boolean {
    return this.output.sendEvent(sessionId, published);
  }

  get eventBatches(): boolean {
    return this.output.batches;
  }

  sendEvents(sessionId: string, events: readonly PublishedEvent[]): boolean {
    return this.output.sendEvents(sessionId, events);
  }

  /** Whether the socket holds enough unsent that a replay should wait (drained) before sending more. */
  get backlogged(): boolean {
    return this.output.backlogged;
  }

  /** Whether live events should wait in the log: half the cap is unsent (a burst of big events). */
  get congested(): boolean {
    return this.output.congested;
  }

  drained(): Promise<void> {
    return this.output.drained();
  }

  // ---- output ---------------------------------------------------------------------------------------

  private sendText(text: string): boolean {
    return this.output.sendFrame(text);
  }

  private dropSlowConsumer(): void {
    this.context.log.warn('slow consumer dropped', {
      connection: this.label,
      bufferedBytes: this.socket.bufferedAmount,
    });
    for (const subscription of this.subscriptions.values()) subscription.stop();
    this.subscriptions.clear();
    this.output.close(CLOSE_CODES.slowConsumer, 'slow consumer: reconnect and resubscribe with afterSeq');
    // A client that does not read will not answer the close either.
    const cut = setTimeout(() => this.socket.terminate(), DROP_GRACE_MS);
    cut.unref();
    void this.closed.then(() => clearTimeout(cut));
  }

  private sendError(id: RequestId | null, rpcCode: number, code: ErrorCode, message: string, error?: ReinsError): void {
    const data = error ? error.toInfo() : { code, message };
    this.sendText(JSON.stringify({ jsonrpc: '2.0', id, error: { code: rpcCode, message, data } }));
    // Before a successful initialize, any failure ends the connection: an unauthenticated peer
    // gets one answer, not a session to probe the daemon with.
    if (!this.authenticated && this.socket.readyState === OPEN) {
      this.output.close(CLOSE_CODES.policy, code === 'auth_required' ? 'auth_required' : 'initialize first');
    }
  }
}

function idOf(message: unknown): RequestId | null {
  if (typeof message !== 'object' || message === null) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
