// A cluster in the test process for the process tier: a nats-server of its own, and cluster nodes
// (workers, gateways) started with startCluster, each with its own REINS_HOME; harnesses are the
// testkit's fake CLIs. Clients connect to a gateway with the real @reins/client.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ReinsClient } from '@reins/client';
import { WebSocket } from 'ws';
import { type ClusterNode, type ClusterOptions, startCluster } from '../../src/index.js';
import { type NatsServer, startNatsServer } from './nats-server.js';

export const silent = { debug() {}, info() {}, warn() {}, error() {} };

export class ClusterRig {
  readonly nodes: ClusterNode[] = [];
  private readonly clients: ReinsClient[] = [];
  private homes = 0;

  private constructor(
    readonly nats: NatsServer,
    readonly dir: string,
  ) {}

  static async start(): Promise<ClusterRig> {
    const dir = await mkdtemp(join(tmpdir(), 'reins-cluster-'));
    return new ClusterRig(await startNatsServer(), dir);
  }

  /** A folder for the test (workspaces, fake homes). */
  async folder(name: string): Promise<string> {
    const path = join(this.dir, name);
    await mkdir(path, { recursive: true });
    return path;
  }

  async node(options: Omit<ClusterOptions, 'cluster'> & { home?: string }): Promise<ClusterNode> {
    const node = await startCluster({
      cluster: this.nats.url,
      home: options.home ?? join(this.dir, `home-${++this.homes}`),
      logger: silent,
      heartbeatTtlMs: 2_000,
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

export async function until(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
