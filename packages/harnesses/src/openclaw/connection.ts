// One operator WebSocket connection to an OpenClaw gateway (protocol v4): the handshake
// (connect.challenge -> connect -> hello-ok), back-off and reconnect while the gateway is still
// starting (retryable UNAVAILABLE, close code 1013, connection refused), request/response
// correlation with a deadline on every request, and every pending request rejected when the socket
// closes. Events go to one listener.
import { ReinsError } from '@reins/core';
import WebSocket from 'ws';
import type { FrameTap } from '../runtime/child-process.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import {
  type GatewayError,
  type GatewayEvent,
  GatewayFrameSchema,
  type HelloOk,
  OPENCLAW_PROTOCOL_VERSION,
} from './wire.js';

export interface GatewayConnectionOptions {
  url: string;
  token?: string;
  requestTimeoutMs: number;
  /** How long to keep retrying while the gateway starts (ms). */
  connectTimeoutMs: number;
  clientVersion?: string;
  tap?: FrameTap;
  onEvent: (event: GatewayEvent, at: number) => void;
  /** Frames that are neither a known response nor an event. */
  onStray?: (frame: unknown, at: number) => void;
  /** The socket closed after the handshake (not by close()). */
  onClose?: (error: ReinsError) => void;
}

interface Pending {
  method: string;
  resolve: (payload: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Thrown inside the handshake loop when trying again makes sense. */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function gatewayError(error: GatewayError, method: string): ReinsError {
  const code =
    error.code === 'UNAUTHORIZED' || error.code === 'AUTH_REQUIRED'
      ? 'auth_required'
      : error.code === 'INVALID_REQUEST'
        ? 'invalid_input'
        : error.code === 'UNAVAILABLE'
          ? 'harness_unhealthy'
          : 'protocol_error';
  return new ReinsError(code, `OpenClaw gateway rejected ${method}: ${error.message} (${error.code})`, {
    harness: 'openclaw',
    operation: method,
    ...(error.retryable !== undefined ? { retryable: error.retryable } : {}),
    data: { gatewayCode: error.code, ...(error.details ? { details: error.details } : {}) },
  });
}

export class GatewayConnection {
  hello: HelloOk | undefined;
  private socket: WebSocket | undefined;
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(private readonly options: GatewayConnectionOptions) {}

  /** Connects and completes the handshake, retrying while the gateway reports it is starting. */
  async open(): Promise<HelloOk> {
    const deadline = Date.now() + this.options.connectTimeoutMs;
    let delay = 250;
    let last: unknown;
    while (!this.closed) {
      try {
        this.hello = await this.attempt();
        return this.hello;
      } catch (error) {
        last = error;
        if (!(error instanceof RetryLater) || Date.now() + error.delayMs > deadline) break;
        await sleep(Math.max(error.delayMs, delay));
        delay = Math.min(delay * 2, 2_000);
      }
    }
    if (ReinsError.isInstance(last)) throw last;
    throw new ReinsError(
      'harness_unhealthy',
      `Could not connect to the OpenClaw gateway at ${this.options.url} within ${this.options.connectTimeoutMs} ms: ${
        last instanceof Error ? last.message : String(last)
      }`,
      { harness: 'openclaw', operation: 'connect', cause: last },
    );
  }

  private attempt(): Promise<HelloOk> {
    return new Promise<HelloOk>((resolve, reject) => {
      const socket = new WebSocket(this.options.url, { perMessageDeflate: false });
      let settled = false;
      const finish = (error: unknown, hello?: HelloOk) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (hello) {
          this.socket = socket;
          resolve(hello);
        } else {
          socket.removeAllListeners();
          socket.on('error', () => {});
          socket.terminate();
          reject(error);
        }
      };
      const timer = setTimeout(
        () => finish(new RetryLater('no hello-ok within the request deadline', 500)),
        this.options.requestTimeoutMs,
      );
      socket.on('error', (error: NodeJS.ErrnoException) => {
        // Not listening yet (the gateway opens its port 15-19 s after spawn on 2026.9.6).
        finish(new RetryLater(error.message, error.code === 'ECONNREFUSED' ? 500 : 1_000));
      });
      socket.on('close', (code, reason) => {
        if (!settled) {
          // 1013 "try again later" while start-up sidecars load (2026.9.6).
          finish(new RetryLater(`closed with ${code} ${reason.toString()}`, code === 1013 ? 500 : 1_000));
          return;
        }
        this.onSocketClose(code, reason.toString());
      });
      socket.on('message', (data) => {
        const text = data.toString();
        const at = Date.now();
        this.options.tap?.('out', text);
        const parsed = parseHarnessLine(text);
        if (!parsed.parsed) {
          this.options.onStray?.(parsed.shown, at);
          return;
        }
        const frame = parsed.value;
        if (!settled) {
          const parsed = GatewayFrameSchema.safeParse(frame);
          if (!parsed.success) return;
          if (parsed.data.type === 'event' && parsed.data.event === 'connect.challenge') {
            this.sendRaw(socket, { type: 'req', id: 'connect', method: 'connect', params: this.connectParams() });
            return;
          }
          if (parsed.data.type === 'res' && parsed.data.id === 'connect') {
            if (parsed.data.ok) return finish(undefined, parsed.data.payload as HelloOk);
            const error = parsed.data.error as GatewayError | undefined;
            if (error?.retryable) return finish(new RetryLater(error.message, error.retryAfterMs ?? 500));
            return finish(gatewayError(error ?? { code: 'UNKNOWN', message: 'connect failed' }, 'connect'));
          }
          return;
        }
        try {
          this.receive(frame, at);
        } catch (cause) {
          this.fault(cause);
        }
      });
    });
  }

  private connectParams() {
    return {
      minProtocol: OPENCLAW_PROTOCOL_VERSION,
      maxProtocol: OPENCLAW_PROTOCOL_VERSION,
      client: {
        id: 'gateway-client',
        version: this.options.clientVersion ?? '0.1.0',
        platform: process.platform,
        mode: 'backend',
      },
      role: 'operator',
      scopes: ['operator.read', 'operator.write', 'operator.admin', 'operator.approvals'],
      caps: [],
      ...(this.options.token ? { auth: { token: this.options.token } } : {}),
      locale: 'en-US',
      userAgent: `reins/${this.options.clientVersion ?? '0.1.0'}`,
    };
  }

  private sendRaw(socket: WebSocket, frame: unknown): boolean {
    if (socket.readyState !== WebSocket.OPEN) return false;
    const text = JSON.stringify(frame);
    this.options.tap?.('in', text);
    socket.send(text);
    return true;
  }

  private receive(frame: unknown, at: number): void {
    const parsed = GatewayFrameSchema.safeParse(frame);
    if (!parsed.success) {
      this.options.onStray?.(frame, at);
      return;
    }
    const data = parsed.data;
    if (data.type === 'event') {
      this.options.onEvent(data as GatewayEvent, at);
      return;
    }
    if (data.type === 'res') {
      const pending = this.settle(data.id);
      if (!pending) {
        this.options.onStray?.(frame, at);
        return;
      }
      if (data.ok) pending.resolve(data.payload);
      else
        pending.reject(
          gatewayError((data.error as GatewayError) ?? { code: 'UNKNOWN', message: 'failed' }, pending.method),
        );
      return;
    }
    // The gateway does not send requests to operator clients in the flows Reins uses.
    this.options.onStray?.(frame, at);
  }

  request<T = unknown>(method: string, params: unknown, timeoutMs = this.options.requestTimeoutMs): Promise<T> {
    const socket = this.socket;
    if (this.closed || !socket) {
      return Promise.reject(
        new ReinsError('process_exited', `The OpenClaw gateway connection is closed; could not send ${method}.`, {
          harness: 'openclaw',
          operation: method,
        }),
      );
    }
    const id = `r${this.nextId++}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ReinsError('timeout', `The OpenClaw gateway did not answer ${method} within ${timeoutMs} ms.`, {
            harness: 'openclaw',
            operation: method,
          }),
        );
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      if (!this.sendRaw(socket, { type: 'req', id, method, params })) {
        this.settle(id)?.reject(
          new ReinsError('process_exited', `The OpenClaw gateway connection is closed; could not send ${method}.`, {
            harness: 'openclaw',
            operation: method,
          }),
        );
      }
    });
  }

  private onSocketClose(code: number, reason: string): void {
    const error = new ReinsError(
      'process_exited',
      `The OpenClaw gateway connection closed (${code}${reason ? ` ${reason}` : ''}).`,
      { harness: 'openclaw', data: { closeCode: code } },
    );
    this.rejectAll(error);
    if (!this.closed) {
      this.closed = true;
      this.options.onClose?.(error);
    }
  }

  /**
   * The session's own handler threw on a frame: it cannot trust its state any more, so this connection
   * (and only this one) ends with a protocol_error; nothing escapes into the ws event loop.
   */
  private fault(cause: unknown): void {
    const error = new ReinsError(
      'protocol_error',
      `Reins could not handle a frame from the OpenClaw gateway (${cause instanceof Error ? cause.message : String(cause)}).`,
      { harness: 'openclaw', cause },
    );
    this.rejectAll(error);
    if (this.closed) return;
    this.closed = true;
    this.socket?.terminate();
    this.options.onClose?.(error);
  }

  private rejectAll(error: ReinsError): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  private settle(id: string): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  /** Closes the socket and rejects what is pending; idempotent. */
  async close(): Promise<void> {
    if (this.closed && !this.socket) return;
    this.closed = true;
    this.rejectAll(
      new ReinsError('process_exited', 'The OpenClaw gateway connection was closed.', { harness: 'openclaw' }),
    );
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 1_000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1000, 'reins session closed');
    });
  }
}
