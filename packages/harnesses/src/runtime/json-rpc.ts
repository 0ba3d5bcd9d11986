// The one JSON-RPC 2.0 peer over any line transport: the adapters speak to harnesses with it, the
// Codex app-server bridge to its clients. It matches out-of-order responses by id, serves the other
// side's requests (approvals), puts a deadline on every request, and rejects every pending request at
// once when the connection ends (a peer that forgets to do so hangs its callers forever).
import { isRecord, ReinsError } from '@reins/core';

export type JsonRpcId = number | string;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Thrown by a request handler to answer with a specific JSON-RPC error. */
export class JsonRpcHandlerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const METHOD_NOT_FOUND = -32601;
export const INTERNAL_ERROR = -32603;

export interface JsonRpcPeerOptions {
  /** Writes one serialized message; returns false when the other side is gone. */
  send: (line: string) => boolean;
  /** 'codex app-server', for messages. */
  label: string;
  /** Ids for this side's requests (default: a counter from 1); the bridge shares one across clients. */
  nextId?: () => JsonRpcId;
  harness?: string;
  defaultTimeoutMs?: number;
  /** Codex omits the "jsonrpc" member; ACP-style peers want it. */
  includeVersion?: boolean;
  onNotification?: (method: string, params: unknown, frame: Record<string, unknown>) => void;
  onRequest?: (method: string, params: unknown, id: JsonRpcId, frame: Record<string, unknown>) => Promise<unknown>;
  /** Frames that are not JSON-RPC, or responses nobody waits for. */
  onStray?: (frame: unknown) => void;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class JsonRpcPeer {
  private counter = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  private closedWith: Error | undefined;

  constructor(private readonly options: JsonRpcPeerOptions) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  request<T = unknown>(method: string, params: unknown, options: { timeoutMs?: number } = {}): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return this.start<T>(method, params, options).answer;
  }

  /** A request whose id the caller needs (to name it later); a closed peer still numbers it. */
  start<T = unknown>(
    method: string,
    params: unknown,
    options: { timeoutMs?: number } = {},
  ): { id: JsonRpcId; answer: Promise<T> } {
    const id = this.options.nextId ? this.options.nextId() : this.counter++;
    if (this.closedWith) return { id, answer: Promise.reject(this.closedWith) };
    const answer = this.awaitAnswer<T>(id, method, options.timeoutMs);
    if (!this.write({ id, method, params })) this.settle(id)?.reject(this.goneError(method));
    return { id, answer };
  }

  /**
   * The answer to a request this peer did not write: one already on its way to the other side (a
   * process's first line, written as it was spawned). `id` must be one the peer never numbers (its
   * own ids count from 1).
   */
  expectAnswer<T = unknown>(id: JsonRpcId, method: string, options: { timeoutMs?: number } = {}): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return this.awaitAnswer<T>(id, method, options.timeoutMs);
  }

  private awaitAnswer<T>(
    id: JsonRpcId,
    method: string,
    timeoutMs = this.options.defaultTimeoutMs ?? 30_000,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs > 0 && Number.isFinite(timeoutMs)
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(
                new ReinsError('timeout', `${this.options.label} did not answer ${method} within ${timeoutMs} ms.`, {
                  harness: this.options.harness,
                  operation: method,
                }),
              );
            }, timeoutMs)
          : undefined;
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
    });
  }

  /** `extra` members go beside method and params (the bridge stamps emittedAtMs). */
  notify(method: string, params: unknown, extra?: Record<string, unknown>): boolean {
    if (this.closedWith) return false;
    return this.write({ method, params, ...extra });
  }

  /** Answers with an error a request the caller read itself (unparsable, over-long: id null if unknown). */
  answerError(id: JsonRpcId | null, error: JsonRpcErrorObject): boolean {
    return this.write({ id, error });
  }

  /** Stops waiting for a request's answer (it no longer matters); a late answer is a stray. */
  forget(id: JsonRpcId, error: Error): void {
    this.settle(id)?.reject(error);
  }

  /** Feeds one parsed incoming message. */
  receive(frame: unknown): void {
    if (!isRecord(frame)) {
      this.options.onStray?.(frame);
      return;
    }
    const { id, method } = frame;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof method === 'string') {
      if (hasId) void this.serve(method, frame.params, id, frame);
      else this.options.onNotification?.(method, frame.params, frame);
      return;
    }
    if (hasId && ('result' in frame || 'error' in frame)) {
      const pending = this.settle(id);
      if (!pending) {
        this.options.onStray?.(frame);
        return;
      }
      if (isRecord(frame.error)) {
        const error = frame.error as unknown as JsonRpcErrorObject;
        pending.reject(
          new ReinsError(
            'protocol_error',
            `${this.options.label} answered ${pending.method} with error ${error.code}: ${error.message}`,
            {
              harness: this.options.harness,
              operation: pending.method,
              data: { rpcCode: error.code, rpcMessage: error.message, rpcData: error.data },
            },
          ),
        );
      } else {
        pending.resolve(frame.result);
      }
      return;
    }
    this.options.onStray?.(frame);
  }

  /** The connection ended: reject everything pending and write nothing more. */
  close(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  private async serve(method: string, params: unknown, id: JsonRpcId, frame: Record<string, unknown>): Promise<void> {
    const handler = this.options.onRequest;
    if (!handler) {
      this.write({ id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` } });
      return;
    }
    try {
      const result = await handler(method, params, id, frame);
      this.write({ id, result: result ?? null });
    } catch (error) {
      const rpcError =
        error instanceof JsonRpcHandlerError
          ? { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) }
          : { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) };
      this.write({ id, error: rpcError });
    }
  }

  private settle(id: JsonRpcId): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    if (pending.timer) clearTimeout(pending.timer);
    return pending;
  }

  private write(message: Record<string, unknown>): boolean {
    if (this.closedWith) return false;
    const framed = this.options.includeVersion ? { jsonrpc: '2.0', ...message } : message;
    return this.options.send(JSON.stringify(framed));
  }

  private goneError(method: string): Error {
    return (
      this.closedWith ??
      new ReinsError('process_exited', `${this.options.label} is gone; ${method} could not be sent.`, {
        harness: this.options.harness,
        operation: method,
      })
    );
  }
}
