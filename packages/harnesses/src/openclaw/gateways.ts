// Which local OpenClaw gateway a session gets (docs/architecture/contract.md, "Warm starts and shared
// processes"). One gateway hosts many session keys, so sessions with the same launch settings share
// one: the binary, the command prefix, the extra arguments, the environment (the user's plus
// `spec.env`), the port option and the working directory. The cwd is a launch setting here, not a
// per-session one: the agent's tools work in the gateway's working directory (openclaw 2026.9.6 with
// `agents.defaults.cwd: "."`; without it, in <state-dir>/workspace, refusing paths outside it), and
// the protocol has no per-session cwd on chat.send or sessions.patch (sessions.create takes one, but
// checks it against the agent's one workspace). The request deadline and the tap are per connection
// (each session has its own WebSocket), so they are not launch settings.
//
// A shared gateway is reference-counted: every session holds a lease, and the gateway stops when the
// last lease is released. When its process ends it is forgotten at once, so the next session starts
// a new one. A warm pool per launch key keeps gateways started and accepting the handshake ahead.
// The registry is process-wide: the daemon builds a Harness per session.
import { createHash } from 'node:crypto';
import { WarmPools } from '../runtime/warm-pool.js';
import type { LocalGateway } from './gateway.js';

export interface GatewayLaunch {
  binaryPath: string;
  cwd: string;
  env: Record<string, string>;
  port?: number;
  commandPrefix?: string[];
  extraArgs?: string[];
}

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
const sortedEnv = (env: Record<string, string>) => Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * What names the gateway's state (its SQLite of sessions): everything but cwd and port. Two gateways
 * of one state key list the same sessions. The environment is hashed, never kept or logged as text.
 */
export function gatewayStateKey(launch: GatewayLaunch): string {
  return digest([launch.binaryPath, sortedEnv(launch.env), launch.commandPrefix ?? [], launch.extraArgs ?? []]);
}

/** Sessions of one launch key share a gateway. */
export function gatewayLaunchKey(launch: GatewayLaunch): string {
  return digest([gatewayStateKey(launch), launch.cwd, launch.port ?? null]);
}

/** A session's hold on a gateway; release() is idempotent and stops the gateway with its last holder. */
export interface GatewayLease {
  readonly gateway: LocalGateway;
  release(): Promise<void>;
}

class SharedGateway {
  refs = 0;
  retired = false;

  constructor(
    readonly gateway: LocalGateway,
    readonly launchKey: string,
    readonly stateKey: string,
  ) {}

  get usable(): boolean {
    return !this.retired && !this.gateway.process.hasExited;
  }
}

const STOP = { stdinGraceMs: 0, termGraceMs: 2_000 } as const;

export class OpenClawGateways {
  private readonly shared = new Map<string, Promise<SharedGateway>>();
  /** The shared gateways started and running, for sessions list and history. */
  private readonly running = new Set<SharedGateway>();
  private readonly pools = new WarmPools<LocalGateway>();

  /**
   * A lease on the gateway for `launch`: the shared one when it runs (share), else a warm one, else
   * one `spawn` starts. Without share the gateway is the session's own and stops with its release.
   */
  async lease(launch: GatewayLaunch, spawn: () => Promise<LocalGateway>, share: boolean): Promise<GatewayLease> {
    const key = gatewayLaunchKey(launch);
    const stateKey = gatewayStateKey(launch);
    if (!share) return this.hold(new SharedGateway(await this.fresh(key, spawn), key, stateKey));
    for (;;) {
      const current = this.shared.get(key);
      if (!current) break;
      const host = await current.catch(() => undefined);
      if (host?.usable) return this.hold(host);
      if (this.shared.get(key) === current) this.shared.delete(key);
    }
    const starting = this.fresh(key, spawn).then((gateway) => new SharedGateway(gateway, key, stateKey));
    this.shared.set(key, starting);
    const forget = () => {
      if (this.shared.get(key) === starting) this.shared.delete(key);
    };
    starting.catch(forget);
    const host = await starting;
    this.running.add(host);
    void host.gateway.process.exited.then(() => {
      host.retired = true;
      this.running.delete(host);
      forget();
    });
    return this.hold(host);
  }

  /** A lease on a running shared gateway of this state (sessions list, history), if there is one. */
  leaseRunning(launch: GatewayLaunch): GatewayLease | undefined {
    const stateKey = gatewayStateKey(launch);
    const launchKey = gatewayLaunchKey(launch);
    const hosts = [...this.running].filter((host) => host.usable && host.stateKey === stateKey);
    // Prefer the gateway of the same cwd; any gateway of the same state lists the same sessions.
    const host = hosts.find((candidate) => candidate.launchKey === launchKey) ?? hosts[0];
    return host ? this.hold(host) : undefined;
  }

  /** Keeps `count` gateways ready (port open, handshake accepted) for `launch`; 0 stops them. */
  warm(launch: GatewayLaunch, start: () => Promise<LocalGateway>, count: number): Promise<void> {
    return this.pools.warm(
      gatewayLaunchKey(launch),
      () => ({
        start,
        stop: async (gateway) => {
          await gateway.process.close(STOP);
        },
        ended: (gateway) => gateway.process.exited,
      }),
      count,
    );
  }

  /** Gateways of `launch` waiting in its pool. */
  readyCount(launch: GatewayLaunch): number {
    return this.pools.readyCount(gatewayLaunchKey(launch));
  }

  private hold(host: SharedGateway): GatewayLease {
    host.refs += 1;
    let released = false;
    return {
      gateway: host.gateway,
      release: async () => {
        if (released) return;
        released = true;
        host.refs -= 1;
        if (host.refs > 0) return;
        host.retired = true;
        this.running.delete(host);
        await host.gateway.process.close(STOP);
      },
    };
  }

  /** A gateway nobody else holds: a warm one when the pool has it, else a new one. */
  private async fresh(key: string, spawn: () => Promise<LocalGateway>): Promise<LocalGateway> {
    const warm = this.pools.take(key);
    if (warm && !warm.process.hasExited) return warm;
    return spawn();
  }
}

/** The one registry of this Reins process. */
export const openClawGateways = new OpenClawGateways();
