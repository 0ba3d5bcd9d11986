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
