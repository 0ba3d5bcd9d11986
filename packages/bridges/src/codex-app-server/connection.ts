// The JSON-RPC side of one Codex app-server client, on the shared JsonRpcPeer (@reins/harnesses):
// newline-delimited messages without a "jsonrpc" member (as `codex app-server` writes them), requests
// served concurrently (answers may come out of order, as in Codex), notifications stamped with
// emittedAtMs, and server -> client requests (approvals) with their own ids and deadlines. What is
// the server's own lives here: lines that are not JSON-RPC are answered with an error, not dropped.
import { isRecord } from '@reins/core';
import { JsonRpcHandlerError, JsonRpcPeer } from '@reins/harnesses';
import { RPC } from './wire.js';

/** Thrown by a request handler to answer with this JSON-RPC error. */
export class RpcError extends JsonRpcHandlerError {
  override readonly name = 'RpcError';
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

export class RpcConnection {
  private readonly peer: JsonRpcPeer;
  private readonly now: () => number;

  constructor(private readonly options: RpcConnectionOptions) {
    this.now = options.now ?? Date.now;
    let counter = 0;
    this.peer = new JsonRpcPeer({
      label: 'The client',
      send: (line) => {
        options.send(line);
        return true;
      },
      nextId: options.nextId ?? (() => counter++),
      // Codex answers a request with nothing to say with {}, not null.
      onRequest: async (method, params) => (await options.onRequest(method, params)) ?? {},
      onNotification: (method, params) => options.onNotification(method, params),
      onStray: (frame) => this.stray(frame),
    });
  }

  get isClosed(): boolean {
    return this.peer.isClosed;
  }

  /** One line from the client. */
  receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.peer.answerError(null, { code: RPC.parseError, message: `Parse error: ${(error as Error).message}` });
      return;
    }
    if (!isRecord(message)) {
      this.peer.answerError(null, { code: RPC.invalidRequest, message: 'Invalid request: expected a JSON object.' });
      return;
    }
    this.peer.receive(message);
  }

  notify(method: string, params: unknown): void {
    this.peer.notify(method, params, { emittedAtMs: this.now() });
  }

  /** A server -> client request; `answer` settles with the result, or rejects on error, deadline or close. */
  request(method: string, params: unknown, timeoutMs: number): { id: RpcId; answer: Promise<unknown> } {
    return this.peer.start(method, params, { timeoutMs });
  }

  /** Answers a request the connection could not read whole (an over-long line) with an error. */
  refuse(id: RpcId, code: number, message: string): void {
    this.peer.answerError(id, { code, message });
  }

  /** Stops waiting for a request's answer (it no longer matters); a late answer is ignored. */
  forget(id: RpcId, reason: string): void {
    this.peer.forget(id, new Error(reason));
  }

  /** The client went away: every pending request is rejected and nothing more is written. */
  close(error: Error): void {
    this.peer.close(error);
  }

  /** An answer nothing waits for is logged; a message with neither a method nor an answer is refused. */
  private stray(frame: unknown): void {
    if (!isRecord(frame)) return;
    const { id } = frame;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (hasId && ('result' in frame || 'error' in frame)) {
      this.options.log(`ignored an answer to request ${JSON.stringify(id)}, which nothing waits for`);
      return;
    }
    this.peer.answerError(hasId ? id : null, {
      code: RPC.invalidRequest,
      message: 'Invalid request: a message needs a method, or an id and a result.',
    });
  }
}
