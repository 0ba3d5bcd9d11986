// Minimal newline-delimited JSON-RPC over a HarnessProcess, for ACP agents and the Codex app-server: enough
// to run a smoke turn (requests with deadlines, notifications collected, server requests answered).
import type { HarnessProcess } from './harness-process.js';
import { parseJsonLine } from './harness-process.js';

export interface RpcMessage {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type ServerRequestHandler = (message: RpcMessage) => { result?: unknown; error?: RpcMessage['error'] };

export class JsonRpcPeer {
  private nextId = 1;
  private scanned = 0;
  readonly notifications: RpcMessage[] = [];
  readonly serverRequests: RpcMessage[] = [];
  private readonly responses = new Map<number | string, RpcMessage>();

  constructor(
    private readonly process: HarnessProcess,
    private readonly options: { jsonrpcField: boolean; onServerRequest?: ServerRequestHandler },
  ) {}

  /** Sends a request and waits for its response; rejects on an error response or at the deadline. */
  async request(method: string, params: unknown, deadlineMs: number): Promise<unknown> {
    const id = this.nextId++;
    this.send({ id, method, params });
    const response = await this.process.waitFor(
      `response to ${method}`,
      () => {
        this.pump();
        return this.responses.get(id);
      },
      deadlineMs,
    );
    if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  /** Waits for a notification that `match` accepts (already received ones count). */
  waitForNotification(what: string, match: (message: RpcMessage) => boolean, deadlineMs: number) {
    return this.process.waitFor(
      what,
      () => {
        this.pump();
        return this.notifications.find(match);
      },
      deadlineMs,
    );
  }

  /** Reads the lines that arrived since the last call and sorts them into responses, requests and notifications. */
  pump(): void {
    const lines = this.process.lines;
    for (; this.scanned < lines.length; this.scanned++) {
      const message = parseJsonLine(lines[this.scanned] ?? '') as RpcMessage | undefined;
      if (!message) continue;
      if (message.method !== undefined && message.id !== undefined) {
        this.serverRequests.push(message);
        const answer = this.options.onServerRequest?.(message) ?? {
          error: { code: -32601, message: `method not found: ${message.method}` },
        };
        this.send({ id: message.id, ...answer });
      } else if (message.method !== undefined) {
        this.notifications.push(message);
      } else if (message.id !== undefined) {
        this.responses.set(message.id, message);
      }
    }
  }

  private send(message: RpcMessage): void {
    this.process.write(JSON.stringify(this.options.jsonrpcField ? { jsonrpc: '2.0', ...message } : message));
  }
}
