// `reins daemon --cluster`: one process's part of a Reins cluster on NATS JetStream. A worker
// hosts harness processes (worker.ts); a gateway serves the daemon's WebSocket protocol for every
// session of the cluster (gateway.ts behind the daemon's own server); `all` is both in one
// process (the default). Without `--cluster`, none of this runs: the daemon is the single-machine
// one with its SQLite store.
import { availableHarnessIds, reinsHome } from '@reins/harnesses';
import { type Daemon, type DaemonOptions, startDaemon } from '../daemon.js';
import { DEFAULT_EVENT_BUFFER_SIZE } from '../event-buffer.js';
import { prepareHome } from '../home.js';
import { listenToken, planListen } from '../listen.js';
import { createLogger } from '../logger.js';
import { normalizePublicOrigins } from '../upgrade-guard.js';
import { ClusterGateway } from './gateway.js';
import { openNats } from './nats.js';
import {
  type ClusterRole,
  checkHeartbeatTtl,
  DEFAULT_HEARTBEAT_TTL_MS,
  type Labels,
  parseClusterUrls,
} from './options.js';
import { ClusterWorker } from './worker.js';

export interface ClusterOptions extends Omit<DaemonOptions, 'store' | 'sessionSource'> {
  /** NATS url(s): `nats://HOST:PORT`, comma-separated for a NATS cluster. */
  cluster: string;
  /** Default `all`. */
  role?: ClusterRole;
  /** A worker's labels (sessions ask for them at create). */
  labels?: Labels;
  /** A worker that misses heartbeats this long is gone (ms, default 10 000). */
  heartbeatTtlMs?: number;
  /** A gateway's in-memory tail per session (default 256). */
  gatewayEventBufferSize?: number;
}

export interface ClusterNode {
  readonly role: ClusterRole;
  /** The NATS url(s), passwords hidden. */
  readonly location: string;
  /** The gateway's WebSocket daemon (roles gateway and all). */
  readonly daemon?: Daemon;
  /** The worker (roles worker and all). */
  readonly worker?: { readonly id: string; readonly labels: Labels; sessionIds(): string[] };
  /** Leaves the cluster: the worker's sessions go dormant, the gateway's clients are told to go. */
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<ClusterNode> {
  const urls = parseClusterUrls(options.cluster);
  const role = options.role ?? 'all';
  const heartbeatTtlMs = checkHeartbeatTtl(options.heartbeatTtlMs ?? DEFAULT_HEARTBEAT_TTL_MS);
  const home = options.home ?? reinsHome();
  const log = options.logger ?? createLogger();
  await prepareHome(home);
  if (role !== 'worker') {
    // A bad address, token file or public origin is refused before NATS is dialled (startDaemon
    // checks them again).
    planListen(options);
    normalizePublicOrigins(options.publicOrigins ?? []);
    await listenToken(options);
  }
  const nats = await openNats(urls, { name: `reins ${role} (pid ${process.pid})`, log });
  let worker: ClusterWorker | undefined;
  let gateway: ClusterGateway | undefined;
  let daemon: Daemon | undefined;
  try {
    if (role !== 'gateway') {
      worker = await ClusterWorker.start({
        nats,
        home,
        labels: options.labels ?? {},
        heartbeatTtlMs,
        log,
        harnesses: options.harnesses ?? availableHarnessIds(),
        harnessOptions: options.harnessOptions ?? {},
        ...(options.createHarness ? { createHarness: options.createHarness } : {}),
        eventBufferSize: options.eventBufferSize ?? DEFAULT_EVENT_BUFFER_SIZE,
        closedSessionsKept: options.closedSessionsKept ?? 100,
        idleTtlMs: options.idleTtlMs ?? 30 * 60_000,
        maxLiveSessions: options.maxLiveSessions ?? 32,
        probeTimeoutMs: options.probeTimeoutMs ?? 15_000,
      });
    }
    if (role !== 'worker') {
      const started = await ClusterGateway.start({
        nats,
        heartbeatTtlMs,
        log,
        eventBufferSize: options.gatewayEventBufferSize ?? 256,
      });
      try {
        // A gateway offers every harness of this build; placement finds a worker that has it.
        const { harnesses: _workers, ...served } = options;
        daemon = await startDaemon({
          ...served,
          home,
          logger: log,
          sessionSource: (changed) => {
            started.changed = changed;
            return started;
          },
        });
        gateway = started;
      } catch (error) {
        await started.close();
        throw error;
      }
    }
  } catch (error) {
    await worker?.close().catch(() => {});
    await nats.close();
    throw error;
  }
  const members = { worker, gateway, daemon };
  let closing: Promise<void> | undefined;
  return {
    role,
    location: nats.location,
    ...(daemon ? { daemon } : {}),
    ...(worker ? { worker } : {}),
    close() {
      closing ??= (async () => {
        // The worker first: clients still connected see its sessions go dormant (and this
        // process's gateway does not take its own worker's leaving for a loss).
        members.gateway?.stopDetecting();
        await members.worker?.close();
        await members.daemon?.close();
        await nats.close();
      })();
      return closing;
    },
  };
}
