// The JSON-RPC side of one Codex app-server client: newline-delimited messages without a "jsonrpc"
// member (as `codex app-server` writes them), requests served concurrently (answers may come out of
// order, as in Codex), notifications stamped with emittedAtMs, and server -> client requests
// (approvals) with their own ids and deadlines. The shared JsonRpcPeer is the CLIENT side Reins
// adapters use; the server side needs the id of each request it makes (serverRequest/resolved names
// it), so it lives here.
import { RPC } from './wire.js';

/** Thrown by a request handler to answer with this JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type RpcId = number | string;

export interface RpcConnectionOptions {
  /** Writes one line (the framing adds the newline). */
  send: (line: string) => void;
  onRequest: (method: string, params: unknown) => Promise<unknown>;
  onNotification: (method: string, params: unknown) => void;
  log: (message: string) => void;
  now?: () => number;
  /** Ids for server -> client requests (default: this connection's own counter from 0). */
  nextId?: () => number;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class RpcConnection {
  private nextId = 0;
  private readonly pending = new Map<RpcId, Pending>();
  private closedWith: Error | undefined;
  private readonly now: () => number;

  constructor(private readonly options: RpcConnectionOptions) {
    this.now = options.now ?? Date.now;
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  /** One line from the client. */
  receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.write({ id: null, error: { code: RPC.parseError, message: `Parse error: ${(error as Error).message}` } });
      return;
    }
    if (!isRecord(message)) {
      this.write({
        id: null,
        error: { code: RPC.invalidRequest, message: 'Invalid request: expected a JSON object.' },
      });
      return;
    }
    const { id, method } = message;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof method === 'string') {
      if (hasId) void this.serve(id, method, message.params);
      else this.options.onNotification(method, message.params);
      return;
    }
    if (hasId && ('result' in message || 'error' in message)) {
      this.answer(id, message);
      return;
    }
    this.write({
      id: hasId ? id : null,
      error: { code: RPC.invalidRequest, message: 'Invalid request: a message needs a method, or an id and a result.' },
    });
  }

  notify(method: string, params: unknown): void {
    if (this.closedWith) return;
    this.write({ method, params, emittedAtMs: this.now() });
  }

  /** A server -> client request; `answer` settles with the result, or rejects on error, deadline or close. */
  request(method: string, params: unknown, timeoutMs: number): { id: RpcId; answer: Promise<unknown> } {
    const id = this.options.nextId ? this.options.nextId() : this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      if (this.closedWith) {
        reject(this.closedWith);
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`The client did not answer ${method} within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.write({ id, method, params });
    });
    return { id, answer };
  }

  /** Answers a request the connection could not read whole (an over-long line) with an error. */
  refuse(id: RpcId, code: number, message: string): void {
    this.write({ id, error: { code, message } });
  }

  /** Stops waiting for a request's answer (it no longer matters); a late answer is ignored. */
  forget(id: RpcId, reason: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.reject(new Error(reason));
  }

  /** The client went away: every pending request is rejected and nothing more is written. */
  close(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const [id, pending] of [...this.pending]) {
      this.pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  private answer(id: RpcId, message: Record<string, unknown>): void {
    const pending = this.pending.get(id);
    if (!pending) {
      this.options.log(`ignored an answer to request ${JSON.stringify(id)}, which nothing waits for`);
      return;
    }
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (isRecord(message.error)) {
      const error = message.error;
      pending.reject(new RpcError(Number(error.code), String(error.message ?? 'error'), error.data));
    } else {
      pending.resolve(message.result);
    }
  }

  private async serve(id: RpcId, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.options.onRequest(method, params);
      this.write({ id, result: result ?? {} });
    } catch (error) {
      const rpc =
        error instanceof RpcError
          ? error
          : new RpcError(RPC.internalError, error instanceof Error ? error.message : String(error));
      this.write({
        id,
        error: { code: rpc.code, message: rpc.message, ...(rpc.data !== undefined ? { data: rpc.data } : {}) },
      });
    }
  }

  private write(message: Record<string, unknown>): void {
    if (this.closedWith) return;
    this.options.send(JSON.stringify(message));
  }
}
