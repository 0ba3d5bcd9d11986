// A bare JSON-RPC client of the daemon that records every event seq of every session as it arrives on
// the wire, and the count of lost, duplicated and out-of-order seqs: the load and cluster tests' judge.
import type { ReinsEvent } from '@reins/core';
import { WebSocket } from 'ws';

/**
 * A bare JSON-RPC client that records every event seq of every session as it arrives on the wire
 * (a RemoteSession would drop a duplicate silently), so tests can count lost, duplicated and out
 * of order events exactly.
 */
export class WireWatcher {
  readonly seqs = new Map<string, number[]>();
  readonly events = new Map<string, ReinsEvent[]>();
  readonly closed: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();

  private constructor(
    private readonly socket: WebSocket,
    private readonly keepEvents: boolean,
  ) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        method?: string;
        params?: { sessionId: string; event: ReinsEvent };
        result?: unknown;
        error?: unknown;
      };
      if (message.method === 'session/event' && message.params) {
        const { sessionId, event } = message.params;
        const list = this.seqs.get(sessionId) ?? [];
        list.push(event.seq);
        this.seqs.set(sessionId, list);
        if (this.keepEvents) this.events.set(sessionId, [...(this.events.get(sessionId) ?? []), event]);
      } else if (message.id !== undefined) {
        this.pending.get(message.id)?.(message);
        this.pending.delete(message.id);
      }
    });
    this.closed = new Promise((resolve) => socket.on('close', () => resolve()));
  }

  static async open(daemon: { url: string; token: string }, keepEvents = false): Promise<WireWatcher> {
    const socket = new WebSocket(daemon.url);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const watcher = new WireWatcher(socket, keepEvents);
    await watcher.request('initialize', { token: daemon.token, protocolVersion: 2 });
    return watcher;
  }

  request(method: string, params?: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) =>
        reply.error ? reject(new Error(JSON.stringify(reply.error))) : resolve(reply.result),
      );
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  subscribe(sessionId: string, afterSeq = 0): Promise<unknown> {
    return this.request('session/subscribe', { sessionId, afterSeq });
  }

  last(sessionId: string): number {
    return this.seqs.get(sessionId)?.at(-1) ?? 0;
  }

  close(): void {
    this.socket.terminate();
  }
}

/** Lost, duplicated and out-of-order events in `seqs` for a log that ends at `lastSeq` (from `firstSeq`). */
export function problems(seqs: readonly number[], lastSeq: number, firstSeq = 1) {
  const unique = new Set(seqs);
  let outOfOrder = 0;
  for (let i = 1; i < seqs.length; i++) if ((seqs[i] as number) <= (seqs[i - 1] as number)) outOfOrder++;
  let lost = 0;
  for (let seq = firstSeq; seq <= lastSeq; seq++) if (!unique.has(seq)) lost++;
  return { lost, duplicated: seqs.length - unique.size, outOfOrder };
}
