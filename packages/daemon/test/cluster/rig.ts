// A cluster in the test process for the process tier: a nats-server of its own, and cluster nodes
// (workers, gateways) started with startCluster, each with its own REINS_HOME; harnesses are the
// testkit's fake CLIs. Clients connect to a gateway with the real @reins/client.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { WebSocket } from 'ws';
import { EventStream } from '../../src/cluster/event-stream.js';
import { openNats } from '../../src/cluster/nats.js';
import { type ClusterNode, type ClusterOptions, startCluster } from '../../src/index.js';
import { type NatsServer, startNatsServer } from './nats-server.js';

// Quiet unless CLUSTER_TEST_LOG=1 (then the members' logs go to stderr, for debugging a test).
const print = (level: string) => (message: string, fields?: unknown) =>
  process.env.CLUSTER_TEST_LOG && console.error(level, message, JSON.stringify(fields));
export const silent = { debug() {}, info: print('info'), warn: print('warn'), error: print('error') };

export class ClusterRig {
  readonly nodes: ClusterNode[] = [];
  private readonly clients: ReinsClient[] = [];
  private homes = 0;

  private constructor(
    readonly nats: NatsServer,
    readonly dir: string,
  ) {}

  static async start(): Promise<ClusterRig> {
    // The server first: when it cannot start (nats-server missing) no empty folder is left behind.
    const nats = await startNatsServer();
    return new ClusterRig(nats, await mkdtemp(join(tmpdir(), 'reins-cluster-')));
  }

  /** A folder for the test (workspaces, fake homes). */
  async folder(name: string): Promise<string> {
    const path = join(this.dir, name);
    await mkdir(path, { recursive: true });
    return path;
  }

  async node(options: Omit<ClusterOptions, 'cluster'> & { cluster?: string; home?: string }): Promise<ClusterNode> {
    const node = await startCluster({
      cluster: this.nats.url,
      home: options.home ?? join(this.dir, `home-${++this.homes}`),
      logger: silent,
      heartbeatTtlMs: 5_000,
      consoleDir: false,
      ...options,
    });
    this.nodes.push(node);
    return node;
  }

  async client(node: ClusterNode, requestTimeoutMs = 30_000): Promise<ReinsClient> {
    const daemon = node.daemon;
    if (!daemon) throw new Error('that node is not a gateway');
    const client = await connect({
      url: daemon.url,
      token: daemon.token,
      WebSocket,
      requestTimeoutMs,
      client: { name: 'cluster-test', version: '0' },
    });
    this.clients.push(client);
    return client;
  }

  async dispose(): Promise<void> {
    for (const client of this.clients.splice(0)) client.close();
    await Promise.allSettled(this.nodes.splice(0).map((node) => node.close()));
    await this.nats.dispose();
    await rm(this.dir, { recursive: true, force: true });
  }
}

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

/** A notice whose data has `key` (`lost`, `resumed`, `dormant`). */
export const noticeWith =
  (key: string) =>
  (event: ReinsEvent): boolean =>
    event.type === 'notice' && typeof event.data === 'object' && event.data !== null && key in event.data;

/** Every seq the events stream holds for a session, in stream order (a copy would show twice). */
export async function storedSeqs(natsUrl: string, sessionId: string): Promise<number[]> {
  const nats = await openNats([natsUrl], { name: 'check', log: silent });
  try {
    const stream = new EventStream(
      nats,
      () => 'check',
      silent,
      () => false,
    );
    const seqs: number[] = [];
    for (;;) {
      const page = await stream.read(sessionId, seqs.at(-1) ?? 0, 1_000);
      if (page.length === 0) return seqs;
      seqs.push(...page.map((event) => event.seq));
    }
  } finally {
    await nats.close();
  }
}
