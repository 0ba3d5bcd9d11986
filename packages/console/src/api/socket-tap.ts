// A WebSocket in front of the browser's, handed to @reins/client's connect(): everything goes
// through to the ReinsClient unchanged, and the console may also call daemon methods by name on the
// same authenticated connection (ids "console:<n>", whose answers it takes out of the stream) and
// hear notifications the client does not handle (harness/authChanged). So methods the daemon adds
// can be called before @reins/client has a typed helper for them, and a daemon without one answers
// with its own error (method not found, unsupported_capability), which the console shows as is.
import {
  errorInfoOf,
  RpcResponseSchema,
  SESSION_EVENT,
  type WebSocketConstructor,
  type WebSocketLike,
} from '@reins/client';
import { ReinsError } from '@reins/core';

const ID_PREFIX = 'console:';
/** How the daemon frames session events (packages/daemon connection.ts); a miss only costs a second parse. */
const EVENT_FRAME_START = `{"jsonrpc":"2.0","method":"${SESSION_EVENT}"`;
const OPEN = 1;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: ReinsError) => void;
  timer: ReturnType<typeof setTimeout>;
}

type NotificationListener = (params: unknown) => void;

export class SocketTap {
  private socket: WebSocketLike | undefined;
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  private closed = false;

  /** The WebSocket class to pass to connect(): one socket per tap. */
  wrap(Base: WebSocketConstructor): WebSocketConstructor {
    const tap = this;
    return class TappedWebSocket implements WebSocketLike {
      private readonly inner: WebSocketLike;
      private readonly messageListeners: Array<(event: unknown) => void> = [];

      constructor(url: string) {
        this.inner = new Base(url);
        tap.attach(this.inner);
        this.inner.addEventListener('message', (event) => {
          if (tap.take((event as { data?: unknown }).data)) return;
          for (const listener of this.messageListeners) listener(event);
        });
      }

      get readyState(): number {
        return this.inner.readyState;
      }

      send(data: string): void {
        this.inner.send(data);
      }

      close(code?: number, reason?: string): void {
        this.inner.close(code, reason);
      }

      addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void {
        if (type === 'message') this.messageListeners.push(listener);
        else this.inner.addEventListener(type, listener);
      }
    };
  }

  /**
   * Calls a daemon method by name (after connect() initialized the connection). Resolves with the
   * raw result; rejects with the daemon's own error as a ReinsError (its code and message).
   */
  call(method: string, params: unknown, timeoutMs = 60_000): Promise<unknown> {
    const socket = this.socket;
    if (!socket || this.closed || socket.readyState !== OPEN) {
      return Promise.reject(new ReinsError('process_exited', 'The daemon connection closed.'));
    }
    const id = `${ID_PREFIX}${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ReinsError('timeout', `The Reins daemon did not answer ${method} within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  /** Every notification with this method (also ones the ReinsClient handles). Returns a function that stops it. */
  onNotification(method: string, listener: NotificationListener): () => void {
    const set = this.listeners.get(method) ?? new Set();
    set.add(listener);
    this.listeners.set(method, set);
    return () => set.delete(listener);
  }

  private attach(socket: WebSocketLike): void {
    this.socket = socket;
    socket.addEventListener('close', () => {
      this.closed = true;
      for (const [id, pending] of this.pending) {
        this.pending.delete(id);
        clearTimeout(pending.timer);
        pending.reject(new ReinsError('process_exited', 'The daemon connection closed.'));
      }
    });
  }

  /** True when the frame was the answer to one of our calls (the client must not see it). */
  private take(data: unknown): boolean {
    if (typeof data !== 'string') return false;
    // Cheap tests first: every event frame passes here, and only the client needs to parse those.
    if (data.startsWith(EVENT_FRAME_START)) return false;
    if (!data.includes(`"id":"${ID_PREFIX}`) && !data.includes('"method"')) return false;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return false;
    }
    if (typeof message !== 'object' || message === null) return false;
    if (!('id' in message)) {
      const { method, params } = message as { method?: unknown; params?: unknown };
      if (typeof method === 'string') {
        for (const listener of [...(this.listeners.get(method) ?? [])]) {
          try {
            listener(params);
          } catch {
            // a listener's bug must not break the connection
          }
        }
      }
      return false;
    }
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
    const pending = this.pending.get(id);
    if (!pending) return true; // answered after its deadline
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const answer = RpcResponseSchema.safeParse(message);
    if (!answer.success) {
      pending.reject(new ReinsError('protocol_error', `The daemon's answer to ${pending.method} is not JSON-RPC.`));
    } else if ('error' in answer.data) {
      const info = errorInfoOf(answer.data.error.data);
      pending.reject(
        info
          ? ReinsError.fromInfo(info, { operation: pending.method })
          : new ReinsError('protocol_error', `The daemon failed ${pending.method}: ${answer.data.error.message}`),
      );
    } else {
      pending.resolve(answer.data.result);
    }
    return true;
  }
}
