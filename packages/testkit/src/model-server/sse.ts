// The per-request exchange: writing SSE frames or one JSON body to a node:http response, pacing with
// delayMs, and waiting for the client to leave. Every wait is tied to the exchange's AbortSignal (client
// disconnect or server close), so a stalled reply never leaks a timer or keeps close() waiting.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Thrown out of a dialect writer when the client went away or the server is closing. */
export class ExchangeAborted extends Error {
  constructor() {
    super('exchange aborted');
    this.name = 'ExchangeAborted';
  }
}

export interface Exchange {
  readonly res: ServerResponse;
  readonly signal: AbortSignal;
}

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

export class SseWriter {
  private sent = 0;

  constructor(
    private readonly exchange: Exchange,
    private readonly delayMs: number,
  ) {}

  open(): void {
    this.exchange.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    this.exchange.res.flushHeaders();
  }

  /** One SSE frame; `event` adds an `event:` line (Anthropic and Responses name their events). */
  async send(data: unknown, event?: string): Promise<void> {
    const { signal, res } = this.exchange;
    if (this.sent > 0 && this.delayMs > 0) {
      await sleep(this.delayMs, undefined, { signal }).catch(() => undefined);
    }
    if (signal.aborted) throw new ExchangeAborted();
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    this.sent += 1;
    await write(res, `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`).catch(() => {
      throw new ExchangeAborted();
    });
  }

  end(): void {
    this.exchange.res.end();
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Resolves once the exchange is aborted; no timer involved. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** A stall: hold the exchange until the client leaves or the server closes, then unwind the writer. */
export async function holdOpen(exchange: Exchange): Promise<void> {
  await waitForAbort(exchange.signal);
  throw new ExchangeAborted();
}

/** failMidStream('destroy'): callers await every write first, so the frames before the cut reach the client. */
export function destroySocket(exchange: Exchange): void {
  exchange.res.destroy();
}
