// Which app-server a Codex session gets (docs/architecture/contract.md, "Warm starts and shared
// processes"). Per launch key (binary, arguments, environment, request deadline, tap: what Codex
// binds at spawn; a thread's cwd goes on thread/start) this process keeps at most one shared host and
// one warm pool. A session leases the shared host when it is usable, else takes a warm host (a warm,
// initialised app-server is a host with zero threads) and makes it the shared one, else spawns.
// A host leaves the registry when its last lease closes or its process ends, so the next session
// after a crash starts a new one. The registry is process-wide: the daemon builds a Harness per
// session, and sessions of equal launch settings must still meet on one process.
// A one-off call (probe) holds the shared host when there is one, else borrows a ready warm one
// without taking it, else starts the shared one itself (taking a warm one still starting) so that a
// session arriving meanwhile joins it; a host the probe started ends with the probe if no session came.
import { createHash } from 'node:crypto';
import type { FrameTap } from '../runtime/child-process.js';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { keyedEnvironment } from '../runtime/launch-environment.js';
import { WarmPools } from '../runtime/warm-pool.js';
import type { CodexHost } from './host.js';
import type { CodexConnection, ConnectionHooks } from './peer.js';

export interface LaunchSettings {
  command: string;
  args: string[];
  env: Record<string, string>;
  requestTimeoutMs: number;
  tap: FrameTap | undefined;
}

const tapIds = new WeakMap<FrameTap, number>();
let nextTapId = 1;

/** A digest of the launch settings (the environment is hashed, never kept or logged as text). */
export function launchKey(settings: LaunchSettings): string {
  const env = keyedEnvironment(settings.env);
  let tap = 0;
  if (settings.tap) {
    tap = tapIds.get(settings.tap) ?? nextTapId++;
    tapIds.set(settings.tap, tap);
  }
  const digest = createHash('sha256')
    .update(JSON.stringify([settings.command, settings.args, env, settings.requestTimeoutMs, tap]))
    .digest('hex');
  return digest.slice(0, 32);
}

export interface LeaseOptions {
  /** false: the session gets a process of its own (a warm one when there is one). */
  share: boolean;
  /** A shared process that already holds this thread is not used for it (two sessions, one thread). */
  resumeThreadId?: string;
  /** The executable as it is now (fileStamp): a host started from another takes no new session. */
  binaryStamp?: string;
}

/**
 * How long after a session took a warm app-server its replacement starts (ms). Seen on 0.171.0 on 2
 * cores: spawning the 300 MB binary held Reins' event loop for ~10-30 ms before the session's
 * thread/start went out, and its start-up to `initialize` took 30-120 ms of CPU beside the session's
 * first turn (first text 138-343 ms, median 251, with the replacement at once; 116-217 ms, median
 * 154, with it 1.5 s later; load ~11, alternating runs).
 */
export const WARM_REFILL_DELAY_MS = 1_000;

export class CodexHosts {
  private readonly shared = new Map<string, Promise<CodexHost>>();
  private readonly pools = new WarmPools<CodexHost>();

  constructor(private readonly options: { refillDelayMs?: number } = {}) {}

  /** A lease for a session on the right host for `key`; `spawn` starts an initialised host. */
  async lease(
    key: string,
    spawn: () => Promise<CodexHost>,
    hooks: ConnectionHooks,
    options: LeaseOptions,
  ): Promise<CodexConnection> {
    const stamp = options.binaryStamp;
    // A process of its own: no session comes after this one, so it opens no further thread ahead.
    if (!options.share) return (await this.fresh(key, spawn, stamp)).lease(hooks, { refillAhead: false });
    const { host } = await this.sharedOrStart(key, spawn, false, stamp);
    if (options.resumeThreadId !== undefined && host.owns(options.resumeThreadId)) {
      return (await this.fresh(key, spawn, stamp)).lease(hooks, { refillAhead: false });
    }
    return host.lease(hooks);
  }

  /**
   * Runs `run` on an app-server of `key` without a session's lease (catalog, account, session list,
   * history: requests that start no thread and leave no state). Before this, each such call spawned
   * an app-server of its own beside the bridge's first thread (bench/README.md, figure 9).
   */
  async probe<T>(
    key: string,
    spawn: () => Promise<CodexHost>,
    run: (peer: JsonRpcPeer) => Promise<T>,
    binaryStamp?: string,
  ): Promise<T> {
    const { host, started } = await this.sharedOrStart(key, spawn, true, binaryStamp);
    const release = host.hold();
    try {
      return await run(host.peer);
    } finally {
      await release();
      // Started for this probe and no session came: it ends now, as a one-shot app-server did.
      if (started && host.idle) await host.close({ stdinGraceMs: 500, termGraceMs: 1000 });
    }
  }

  /**
   * The usable shared host of `key` (waiting for one starting; a dead one, or one of an executable
   * since replaced, is forgotten: it keeps its sessions and ends with them), else, with `borrowReady`,
   * a ready warm one left in its pool, else the shared one started now. Finding none and registering
   * the start happen in one step (no await between), so two callers that come together meet on one
   * process.
   */
  private async sharedOrStart(
    key: string,
    spawn: () => Promise<CodexHost>,
    borrowReady: boolean,
    stamp: string | undefined,
  ): Promise<{ host: CodexHost; started: boolean }> {
    for (;;) {
      const current = this.shared.get(key);
      if (!current) {
        const ready = borrowReady ? this.pools.peek(key) : undefined;
        if (ready?.takesSessionsOf(stamp)) return { host: ready, started: false };
        return { host: await this.startShared(key, spawn, stamp), started: true };
      }
      const host = await current.catch(() => undefined);
      if (host?.takesSessionsOf(stamp)) return { host, started: false };
      if (this.shared.get(key) === current) this.shared.delete(key);
    }
  }

  /** Starts the shared host of `key` (a warm one when there is one): sessions leasing meanwhile wait for it. */
  private async startShared(
    key: string,
    spawn: () => Promise<CodexHost>,
    stamp: string | undefined,
  ): Promise<CodexHost> {
    const starting = this.fresh(key, spawn, stamp);
    this.shared.set(key, starting);
    const forget = () => {
      if (this.shared.get(key) === starting) this.shared.delete(key);
    };
    starting.catch(forget);
    const host = await starting;
    host.onRetired = forget;
    if (!host.usable) forget();
    return host;
  }

  /** Keeps `count` initialised hosts ready for `key`; 0 stops the ready ones and forgets the pool. */
  warm(key: string, spawn: () => Promise<CodexHost>, count: number): Promise<void> {
    return this.pools.warm(
      key,
      () => ({
        start: spawn,
        stop: (host) => host.close({ stdinGraceMs: 500, termGraceMs: 1000 }),
        ended: (host) => host.exited,
        refillDelayMs: this.options.refillDelayMs ?? WARM_REFILL_DELAY_MS,
      }),
      count,
    );
  }

  hasPool(key: string): boolean {
    return this.pools.has(key);
  }

  /** Processes of `key` waiting in its pool. */
  readyCount(key: string): number {
    return this.pools.readyCount(key);
  }

  /**
   * A host nobody else holds: a warm one when the pool has one ready or starting (a start in flight
   * began earlier than a spawn now would: a bridge warms its harness while it loads), else a new one.
   * A warm one of an executable since replaced is ended (its replacement starts from the new one).
   */
  private async fresh(key: string, spawn: () => Promise<CodexHost>, stamp: string | undefined): Promise<CodexHost> {
    const warm = await this.pools.takeSoon(key);
    if (warm?.takesSessionsOf(stamp)) return warm;
    if (warm) void warm.close();
    return spawn();
  }
}

/** The one registry of this Reins process. */
export const codexHosts = new CodexHosts();
