// Which agent process an ACP session gets (docs/architecture/contract.md, "Warm starts and shared
// processes"). Per launch key (binary, arguments, environment, request deadline, sign-in method, tap:
// what is fixed when the agent is spawned and initialized; the session's cwd goes on session/new)
// this Reins process keeps at most one shared connection and one warm pool. A session leases the
// shared connection while it is alive, else takes a warm one (an initialised agent with no session)
// and makes it the shared one, else spawns. The connection is reference-counted: it closes with its
// last lease, and leaves the registry when it closes or its process ends, so the next session after a
// crash spawns a new one. The registry is process-wide, as the daemon builds a Harness per session.
import { createHash } from 'node:crypto';
import type { FrameTap } from '../runtime/child-process.js';
import { keyedEnvironment } from '../runtime/launch-environment.js';
import { WarmPools } from '../runtime/warm-pool.js';
import type { AcpConnection } from './connection.js';

export interface AcpLaunchSettings {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  requestTimeoutMs: number;
  authMethod: string | undefined;
  tap: FrameTap | undefined;
  /** The ACP version asked for at initialize (absent: 1). */
  protocolVersion?: 1 | 2;
  /** The writable folders of a confined agent (posture workspace); absent: not confined. */
  confine?: string[];
}

const tapIds = new WeakMap<FrameTap, number>();
let nextTapId = 1;

/** A digest of the launch settings (the environment is hashed, never kept or logged as text). */
export function acpLaunchKey(settings: AcpLaunchSettings): string {
  const env = keyedEnvironment(settings.env);
  let tap = 0;
  if (settings.tap) {
    tap = tapIds.get(settings.tap) ?? nextTapId++;
    tapIds.set(settings.tap, tap);
  }
  return createHash('sha256')
    .update(
      JSON.stringify([
        settings.command,
        settings.args,
        env,
        settings.requestTimeoutMs,
        settings.authMethod ?? '',
        tap,
        settings.protocolVersion ?? 1,
        settings.confine ?? [],
      ]),
    )
    .digest('hex')
    .slice(0, 32);
}

/** A session's hold on an agent process. */
export interface AcpLease {
  connection: AcpConnection;
  /** Gives the hold back; the process closes with its last lease. Idempotent. */
  release(): Promise<void>;
}

export interface AcpLeaseOptions {
  /** false: the session gets a process of its own (a warm one when there is one). */
  share: boolean;
  /** The native session the lease is for when resuming: a process already holding it is not shared for it. */
  resumeSessionId?: string;
}

interface Shared {
  connection: Promise<AcpConnection>;
  refs: number;
}

export class AcpHosts {
  private readonly shared = new Map<string, Shared>();
  private readonly pools = new WarmPools<AcpConnection>();

  /** A lease on the right process for `key`; `open` spawns and initializes one. */
  async lease(key: string, open: () => Promise<AcpConnection>, options: AcpLeaseOptions): Promise<AcpLease> {
    if (!options.share) return this.own(await this.fresh(key, open));
    for (;;) {
      const entry = this.shared.get(key);
      if (!entry) break;
      entry.refs++;
      const connection = await entry.connection.catch(() => undefined);
      if (connection && !connection.ended && this.shared.get(key) === entry) {
        if (options.resumeSessionId !== undefined && connection.holds(options.resumeSessionId)) {
          // Two sessions on one native session would steal each other's frames: this one gets its own process.
          entry.refs--;
          return this.own(await this.fresh(key, open));
        }
        return this.held(key, entry, connection);
      }
      entry.refs--;
      if (this.shared.get(key) === entry) this.shared.delete(key);
    }
    const entry: Shared = { connection: this.fresh(key, open), refs: 1 };
    this.shared.set(key, entry);
    const forget = () => {
      if (this.shared.get(key) === entry) this.shared.delete(key);
    };
    let connection: AcpConnection;
    try {
      connection = await entry.connection;
    } catch (error) {
      forget();
      throw error;
    }
    connection.onEnd(forget);
    if (connection.ended) forget();
    return this.held(key, entry, connection);
  }

  /** Keeps `count` initialised agents with no session ready for `key`; 0 stops them and forgets the pool. */
  warm(key: string, open: () => Promise<AcpConnection>, count: number): Promise<void> {
    return this.pools.warm(
      key,
      () => ({
        start: open,
        stop: (connection) => connection.close(),
        ended: (connection) => new Promise((resolve) => connection.onEnd(resolve)),
      }),
      count,
    );
  }

  /** Agents of `key` waiting in its pool. */
  readyCount(key: string): number {
    return this.pools.readyCount(key);
  }

  /** Leases on the shared process of `key` (0 when there is none). */
  sharedLeases(key: string): number {
    return this.shared.get(key)?.refs ?? 0;
  }

  private held(key: string, entry: Shared, connection: AcpConnection): AcpLease {
    let released: Promise<void> | undefined;
    return {
      connection,
      release: () => {
        released ??= (async () => {
          entry.refs--;
          if (entry.refs > 0) return;
          if (this.shared.get(key) === entry) this.shared.delete(key);
          await connection.close();
        })();
        return released;
      },
    };
  }

  private own(connection: AcpConnection): AcpLease {
    let released: Promise<void> | undefined;
    return {
      connection,
      release: () => {
        released ??= connection.close();
        return released;
      },
    };
  }

  /** A process nobody else holds: a warm one when the pool has a live one, else a new one. */
  private async fresh(key: string, open: () => Promise<AcpConnection>): Promise<AcpConnection> {
    const warm = this.pools.take(key);
    if (warm && !warm.ended) return warm;
    if (warm) void warm.close();
    return open();
  }
}

/** The one registry of this Reins process. */
export const acpHosts = new AcpHosts();
