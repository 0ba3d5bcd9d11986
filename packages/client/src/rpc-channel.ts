// The client side of the JSON-RPC connection over any WebSocket (the browser's, or `ws` in Node):
// requests with deadlines, answers validated against the protocol, notifications handed on in wire
// order, and every pending request rejected when the socket closes (no caller waits forever).
import { ReinsError } from '@reins/core';
import {
  errorInfoOf,
  issuesSentence,
  METHODS,
  type MethodName,
  type ParamsOf,
  PROTOCOL_VERSION,
  type RequestId,
  type ResultOf,
  RpcNotificationSchema,
  RpcResponseSchema,
  SESSION_EVENT,
  SESSION_EVENTS,
} from '@reins/protocol';

/** What the client needs of a WebSocket; the browser's WebSocket and `ws`'s both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Listeners take `unknown`: the browser's and ws's event classes differ, only the fields we read agree. */
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** readyState values (the same in browsers and ws). */
const OPEN = 1;

export interface RequestOptions<R> {
  timeoutMs: number;
  /**
   * Sees the result synchronously, before any later frame is handled: subscribers use it to set
   * state that the notifications right behind the answer depend on.
   */
  onResult?: (result: R) => void;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: ReinsError) => void;
  timer: ReturnType<typeof setTimeout>;
  onResult?: (result: never) => void;
}

/** Why pending requests fail when the socket drops (BINDING code: process_exited). */
export function connectionClosed(): ReinsError {
  return new ReinsError('process_exited', 'The daemon connection closed.');
}

export type NotificationHandler = (method: string, params: unknown) => void;

export class RpcChannel {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private closeReason: ReinsError | undefined;
  private readonly closeListeners: Array<(reason: ReinsError) => void> = [];

  constructor(
    private readonly socket: WebSocketLike,
    private readonly onNotification: NotificationHandler,
  ) {
    socket.addEventListener('message', (event) => this.receive((event as { data?: unknown }).data));
    socket.addEventListener('close', () => this.shutdown(connectionClosed()));
  }

  get isClosed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Runs once when the connection ends (at once when it already has). */
  onClose(listener: (reason: ReinsError) => void): void {
    if (this.closeReason) listener(this.closeReason);
    else this.closeListeners.push(listener);
  }

  request<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    options: RequestOptions<ResultOf<M>>,
  ): Promise<ResultOf<M>> {
    if (this.closeReason) return Promise.reject(this.closeReason);
    if (this.socket.readyState !== OPEN) {
      return Promise.reject(connectionClosed());
    }
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ReinsError('timeout', `The Reins daemon did not answer ${method} within ${options.timeoutMs} ms.`, {
            operation: method,
          }),
        );
      }, options.timeoutMs);
      this.pending.set(id, {
        method,
        resolve: resolve as (result: unknown) => void,
        reject,
        timer,
        ...(options.onResult ? { onResult: options.onResult as (result: never) => void } : {}),
      });
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  close(): void {
    this.shutdown(connectionClosed());
    if (this.socket.readyState <= OPEN) this.socket.close(1000, 'client closed');
  }

  private receive(data: unknown): void {
    const problem = this.dispatch(data);
    if (problem) this.fail(problem);
  }

  /** Hands a frame on; returns what is wrong with it when the link can no longer be trusted. */
  private dispatch(data: unknown): string | undefined {
    if (typeof data !== 'string') return 'The daemon sent a binary frame; the protocol is JSON text.';
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return 'The daemon sent a frame that is not JSON.';
    }
    if (typeof message === 'object' && message !== null && !('id' in message)) {
      // The hot path: an event frame (one event, or a batch) that plainly fits the envelope skips
      // the schema's copy (its params are checked where they are read, client.ts).
      const frame = message as { jsonrpc?: unknown; method?: unknown; params?: unknown };
      const isEventFrame = frame.method === SESSION_EVENT || frame.method === SESSION_EVENTS;
      if (isEventFrame && frame.jsonrpc === '2.0' && !Array.isArray(message)) {
        this.onNotification(frame.method as string, frame.params);
        return undefined;
      }
      const notification = RpcNotificationSchema.safeParse(message);
      if (!notification.success) return 'The daemon sent a malformed JSON-RPC notification.';
      this.onNotification(notification.data.method, notification.data.params);
      return undefined;
    }
    const response = RpcResponseSchema.safeParse(message);
    if (!response.success) return 'The daemon sent a malformed JSON-RPC response.';
    const answer = response.data;
    if (answer.id === null) {
      // An error about a frame the daemon could not read: ours are always valid, so the link is broken.
      return `The daemon could not read a request: ${'error' in answer ? answer.error.message : ''}`;
    }
    const pending = this.pending.get(answer.id);
    if (!pending) return undefined; // answered after its deadline: already rejected
    this.pending.delete(answer.id);
    clearTimeout(pending.timer);
    if ('error' in answer) {
      const info = errorInfoOf(answer.error.data);
      pending.reject(
        info
          ? ReinsError.fromInfo(info, { operation: pending.method })
          : new ReinsError('protocol_error', `The daemon failed ${pending.method}: ${answer.error.message}`, {
              operation: pending.method,
              data: { rpcCode: answer.error.code },
            }),
      );
      return undefined;
    }
    const schema = METHODS[pending.method as MethodName].result;
    const result = schema.safeParse(answer.result);
    if (!result.success) {
      pending.reject(
        new ReinsError(
          'protocol_error',
          `The daemon's answer to ${pending.method} does not fit protocol ${PROTOCOL_VERSION}: ${issuesSentence(result.error)}.`,
          { operation: pending.method },
        ),
      );
      return undefined;
    }
    pending.onResult?.(result.data as never);
    pending.resolve(result.data);
    return undefined;
  }

  private fail(message: string): void {
    this.shutdown(new ReinsError('protocol_error', message));
    if (this.socket.readyState <= OPEN) this.socket.close(1002, 'protocol error');
  }

  private shutdown(reason: ReinsError): void {
    if (this.closeReason) return;
    this.closeReason = reason;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(reason);
    }
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
