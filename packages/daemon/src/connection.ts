// One client connection: the JSON-RPC boundary of the daemon. Every frame is checked here (JSON-RPC
// shape, then the method's params with the protocol's zod schema); nothing runs before a successful
// `initialize` with the token; every failure goes back as a JSON-RPC error carrying ErrorInfo.
// Subscriptions live here too: this connection's view of the daemon's sessions.

import { timingSafeEqual } from 'node:crypto';
import type { HarnessListing, SessionCreateParams } from '@reins/client';
import {
  describeInvalidParams,
  isMethodName,
  METHOD_NAMES,
  METHODS,
  type MethodName,
  type ParamsOf,
  PROTOCOL_VERSION,
  type RequestId,
  type ResultOf,
  RPC_ERROR,
  RpcIncomingSchema,
  rpcErrorNumber,
  SESSION_EVENT,
} from '@reins/client';
import { type ErrorCode, type HarnessId, ReinsError, type ReinsEvent } from '@reins/core';
import type { RawData, WebSocket } from 'ws';
import type { HostedSession } from './hosted-session.js';
import type { Logger } from './logger.js';

/** What a connection needs of the daemon. */
export interface DaemonContext {
  readonly token: string;
  readonly reinsVersion: string;
  readonly harnesses: HarnessId[];
  readonly log: Logger;
  readonly initializeTimeoutMs: number;
  /** A subscriber whose socket holds more unsent bytes than this is dropped (it can resume). */
  readonly maxBufferedBytes: number;
  listHarnesses(): Promise<HarnessListing[]>;
  createSession(params: SessionCreateParams): Promise<HostedSession>;
  listSessions(): HostedSession[];
  /** The session, or invalid_input naming the id. */
  session(sessionId: string): HostedSession;
}

interface Reply<R> {
  result: R;
  /** Runs right after the answer was written, in the same tick (subscribe's replay). */
  afterSend?: () => void;
}
type Handler<M extends MethodName> = (params: ParamsOf<M>) => Reply<ResultOf<M>> | Promise<Reply<ResultOf<M>>>;

const OPEN = 1;
const CLOSE_POLICY = 1008;
const CLOSE_TRY_AGAIN = 1013;

function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

let connectionCounter = 0;

export class DaemonConnection {
  readonly label = `c${++connectionCounter}`;
  private authenticated = false;
  private readonly subscriptions = new Set<HostedSession>();
  private readonly initializeTimer: ReturnType<typeof setTimeout>;
  private readonly handlers: { [M in MethodName]: Handler<M> };
  /** Resolves when the socket closed. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    private readonly context: DaemonContext,
  ) {
    this.handlers = this.makeHandlers();
    this.initializeTimer = setTimeout(() => {
      if (this.authenticated) return;
      context.log.info('connection closed: no initialize in time', { connection: this.label });
      socket.close(CLOSE_POLICY, 'auth_required: initialize was not called in time');
    }, context.initializeTimeoutMs);
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        clearTimeout(this.initializeTimer);
        for (const hosted of this.subscriptions) hosted.unsubscribe(this);
        this.subscriptions.clear();
        context.log.info('connection closed', { connection: this.label });
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

  /** Closes the socket (daemon shutdown); `terminate` when it does not close in time. */
  close(code: number, reason: string): void {
    if (this.socket.readyState <= OPEN) this.socket.close(code, reason);
  }

  terminate(): void {
    this.socket.terminate();
  }

  private async receive(data: RawData, isBinary: boolean): Promise<void> {
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
      const id = idOf(message);
      return this.sendError(
        id,
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
    try {
      const handler = this.handlers[method] as Handler<MethodName>;
      const pending = handler(checked.data as ParamsOf<MethodName>);
      // A synchronous handler answers in this very tick (subscribe relies on it).
      const reply = pending instanceof Promise ? await pending : pending;
      this.send({ jsonrpc: '2.0', id, result: reply.result });
      reply.afterSend?.();
    } catch (error) {
      const reins = ReinsError.from(error, 'protocol_error', { operation: method });
      if (!ReinsError.isInstance(error)) {
        this.context.log.error('request failed unexpectedly', { connection: this.label, method, error: reins.message });
      }
      this.sendError(id, rpcErrorNumber(reins.code), reins.code, reins.message, reins);
    }
  }

  private makeHandlers(): { [M in MethodName]: Handler<M> } {
    const context = this.context;
    return {
      initialize: (params) => {
        if (this.authenticated) throw new ReinsError('invalid_input', 'This connection is already initialized.');
        if (!tokensMatch(params.token, context.token)) {
          context.log.warn('initialize refused: wrong token', { connection: this.label });
          throw new ReinsError(
            'auth_required',
            'The token is wrong: read it from daemon.json of the running daemon (it changes on every start).',
          );
        }
        this.authenticated = true;
        clearTimeout(this.initializeTimer);
        context.log.info('connection initialized', {
          connection: this.label,
          client: params.client ? `${params.client.name}/${params.client.version}` : undefined,
        });
        return {
          result: {
            protocolVersion: PROTOCOL_VERSION,
            reinsVersion: context.reinsVersion,
            harnesses: context.harnesses,
          },
        };
      },
      'harness/list': async () => ({ result: await context.listHarnesses() }),
      'session/create': async (params) => {
        const hosted = await context.createSession(params);
        return {
          result: {
            sessionId: hosted.id,
            harness: hosted.harness,
            ...(hosted.nativeSessionId !== undefined ? { nativeSessionId: hosted.nativeSessionId } : {}),
          },
        };
      },
      'session/list': () => ({ result: context.listSessions().map((hosted) => hosted.listing()) }),
      'session/subscribe': (params) => {
        const hosted = context.session(params.sessionId);
        const sessionId = hosted.id;
        const replay = hosted.subscribe(this, params.afterSeq ?? 0, (event) => this.sendEvent(sessionId, event));
        this.subscriptions.add(hosted);
        const listing = hosted.listing();
        return {
          result: {
            lastSeq: listing.lastSeq,
            harness: listing.harness,
            ...(listing.nativeSessionId !== undefined ? { nativeSessionId: listing.nativeSessionId } : {}),
            status: listing.status,
          },
          afterSend: () => {
            for (const event of replay) this.sendEvent(sessionId, event);
          },
        };
      },
      'session/unsubscribe': (params) => {
        const hosted = context.session(params.sessionId);
        hosted.unsubscribe(this);
        this.subscriptions.delete(hosted);
        return { result: {} };
      },
      'session/send': async (params) => ({
        result: await context.session(params.sessionId).session.send(params.input, params.options),
      }),
      'session/interrupt': async (params) => {
        await context.session(params.sessionId).session.interrupt();
        return { result: {} };
      },
      'session/setModel': async (params) => ({
        result: await context.session(params.sessionId).session.setModel(params.model),
      }),
      'session/setEffort': async (params) => ({
        result: await context.session(params.sessionId).session.setEffort(params.effort),
      }),
      'session/respondToPermission': async (params) => {
        await context.session(params.sessionId).session.respondToPermission(params.requestId, params.decision);
        return { result: {} };
      },
      'session/close': async (params) => {
        // Answers after every event up to session.closed went out to subscribers.
        await context.session(params.sessionId).close();
        return { result: {} };
      },
    };
  }

  private sendEvent(sessionId: string, event: ReinsEvent): void {
    if (this.socket.readyState !== OPEN) return;
    if (this.socket.bufferedAmount > this.context.maxBufferedBytes) {
      // Buffering without bound for a client that does not read would grow the daemon forever; the
      // client reconnects and resumes from its last seq instead.
      this.context.log.warn('slow subscriber dropped', { connection: this.label, sessionId });
      this.socket.close(CLOSE_TRY_AGAIN, 'slow consumer: reconnect and attach with afterSeq');
      return;
    }
    this.send({ jsonrpc: '2.0', method: SESSION_EVENT, params: { sessionId, event } });
  }

  private sendError(id: RequestId | null, rpcCode: number, code: ErrorCode, message: string, error?: ReinsError): void {
    const data = error ? error.toInfo() : { code, message };
    this.send({ jsonrpc: '2.0', id, error: { code: rpcCode, message, data } });
    // Before a successful initialize, any failure ends the connection: an unauthenticated peer
    // gets one answer, not a session to probe the daemon with.
    if (!this.authenticated)
      this.socket.close(CLOSE_POLICY, code === 'auth_required' ? 'auth_required' : 'initialize first');
  }

  private send(message: unknown): void {
    if (this.socket.readyState !== OPEN) return;
    this.socket.send(JSON.stringify(message));
  }
}

function idOf(message: unknown): RequestId | null {
  if (typeof message !== 'object' || message === null) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
