// The OpenClaw adapter (the Harness object; session.ts runs a session on the chassis, gateway.ts
// starts a local gateway): a Reins session is one gateway session key (`agent:<agent>:reins-<uuid>`)
// driven over an operator WebSocket connection (protocol v4). The gateway is either one that is
// already running (options.gateway or OPENCLAW_GATEWAY_URL / OPENCLAW_GATEWAY_TOKEN) or a local one
// (`openclaw gateway run --bind loopback --auth token`, a HarnessProcess) that sessions of the same
// launch settings share, reference-counted, unless `shareProcess: false` gives each its own
// (gateways.ts; warm(count) keeps gateways started ahead).
//
// Decisions (openclaw 2026.9.6):
// - nativeSessionId is the gateway session key; resume reuses it (history and model live in the
//   gateway's SQLite and survive a gateway restart).
// - queue: Reins queues and sends the next chat.send after the run ended. The gateway's own default
//   queue mode for a busy session is "steer" (sessions.list `effectiveQueueMode`), which would merge
//   the message into the running run; so only `send(..., {mode:'steer'})` sends while a run is active,
//   with queueMode "steer".
// - a session on a shared gateway still has its own WebSocket connection, not one connection for
//   all: the gateway broadcasts chat and agent events to every operator.read connection (its
//   docs/gateway/protocol/presence.md, 2026.9.6) and the translation
//   keeps only its own session key and run, so a shared connection would add a router and no saving;
//   with one connection each, a session's close, its handler fault or a dropped socket ends that
//   session alone, and a request deadline or tap stays per session.
// - turn usage and cost are read from the run's transcript rows (chat.history) after its terminal:
//   the live `agent` usage stream reports output tokens only (2026.9.6).
import { randomUUID } from 'node:crypto';
import {
  type CapabilityMatrix,
  type Discovery,
  type Harness,
  type Health,
  type Item,
  ReinsError,
  type Session,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { acceptSessionSpec, HarnessBinary, type SpecSupport } from '../runtime/chassis/index.js';
import { capabilitiesOfDiscovered } from '../runtime/evidence.js';
import type { HarnessOptions } from '../runtime/options.js';
import { OPENCLAW_IMPLEMENTED } from './capabilities.js';
import { GatewayConnection } from './connection.js';
import { OPENCLAW_BINARY, OPENCLAW_INSTALL } from './discovery.js';
import { type LocalGateway, startLocalGateway } from './gateway.js';
import { type GatewayLaunch, type GatewayLease, gatewayLaunchKey, openClawGateways } from './gateways.js';
import { DEFAULT_OPENCLAW_TIMEOUT_MS, OpenClawSession } from './session.js';
import { openClawHistoryItems } from './translate.js';

export { type LocalGateway, startLocalGateway } from './gateway.js';

export interface OpenClawHarnessOptions extends HarnessOptions {
  /** A running gateway; default OPENCLAW_GATEWAY_URL / OPENCLAW_GATEWAY_TOKEN from baseEnv, else a local one is started. */
  gateway?: { url: string; token?: string };
  /** Agent whose sessions Reins creates (default `main`). */
  agentId?: string;
  /** How long to wait for a gateway to accept the handshake (ms; default 180 000: 2026.9.6 starts slowly). */
  connectTimeoutMs?: number;
  /** Local gateway: the port (default a free one) and a command prefix (e.g. a namespace wrapper). */
  gatewayPort?: number;
  gatewayCommandPrefix?: string[];
  /** Local gateway: the working directory warm gateways start in (default the current directory). */
  warmCwd?: string;
}

/** What openclaw 2026.9.6 honours of the session spec over the gateway protocol. */
export const OPENCLAW_SPEC_SUPPORT: SpecSupport = {
  model: true, // sessions.patch {model}
  effort: true, // sessions.patch {thinkingLevel}
  resume: true, // the session key
  postures: ['bypass'], // approvals are not surfaced; its tools ran without prompts
  ephemeral: false, // every gateway session is kept in its SQLite
  allowedTools: false, // no per-session tool list on chat.send or sessions.patch
  systemPrompt: false, // no per-session system prompt addition
  mcpServers: false, // no per-session MCP servers
};

class OpenClawHarness implements Harness {
  readonly id = 'openclaw' as const;
  readonly displayName = 'OpenClaw';
  private readonly binary: HarnessBinary;
  /** The launch settings this harness keeps warm gateways for (warm(0) stops them). */
  private readonly warmed = new Map<string, GatewayLaunch>();

  constructor(private readonly options: OpenClawHarnessOptions) {
    this.binary = new HarnessBinary(OPENCLAW_BINARY, options, OPENCLAW_INSTALL);
  }

  private env(additions?: Record<string, string>) {
    return this.binary.env(additions);
  }

  private endpoint(): { url: string; token?: string } | undefined {
    if (this.options.gateway) return this.options.gateway;
    const env = this.env();
    if (!env.OPENCLAW_GATEWAY_URL) return undefined;
    return {
      url: env.OPENCLAW_GATEWAY_URL,
      ...(env.OPENCLAW_GATEWAY_TOKEN ? { token: env.OPENCLAW_GATEWAY_TOKEN } : {}),
    };
  }

  discover(): Promise<Discovery> {
    return this.binary.discover();
  }

  async health(): Promise<Health> {
    // With a gateway to connect to, the local binary is not what sessions use.
    if (!this.endpoint()) return this.binary.health();
    const discovery = await this.discover();
    return { status: 'ready', ...(discovery.found ? { binary: discovery.binary } : {}) };
  }

  async capabilities(): Promise<CapabilityMatrix> {
    return capabilitiesOfDiscovered('openclaw', OPENCLAW_IMPLEMENTED, await this.discover());
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const spec = acceptSessionSpec(raw, OPENCLAW_SPEC_SUPPORT, this);
    const key = spec.resume?.nativeSessionId ?? `agent:${this.options.agentId ?? 'main'}:reins-${randomUUID()}`;
    const session = new OpenClawSession(spec, this.options, key);
    const endpoint = this.endpoint();
    if (endpoint) {
      await session.start(endpoint, undefined, undefined);
      return session;
    }
    const binary = await this.binary.resolve();
    const launch = this.launch(binary.path, spec.cwd, spec.env);
    const lease = await openClawGateways.lease(
      launch,
      () => startLocalGateway(launch),
      this.options.shareProcess !== false,
    );
    await session.start(lease.gateway, lease, binary);
    return session;
  }

  /** The local gateway's launch settings (gateways.ts: what sessions sharing one must agree on). */
  private launch(binaryPath: string, cwd: string, env?: Record<string, string>): GatewayLaunch {
    return {
      binaryPath,
      cwd,
      env: this.env(env),
      ...(this.options.gatewayPort ? { port: this.options.gatewayPort } : {}),
      ...(this.options.gatewayCommandPrefix ? { commandPrefix: this.options.gatewayCommandPrefix } : {}),
      ...(this.options.extraArgs ? { extraArgs: this.options.extraArgs } : {}),
    };
  }

  /**
   * Keeps `count` local gateways started ahead with their port open and the handshake accepted (the
   * 15-19 s start of 2026.9.6 is paid before the session), for the Harness's launch settings with no
   * spec.env in `warmCwd` (default the current directory). A configured gateway needs none.
   */
  async warm(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 0) {
      throw new ReinsError('invalid_input', `warm(count) takes a whole number >= 0, got ${count}.`, {
        harness: 'openclaw',
        operation: 'warm',
      });
    }
    if (this.endpoint()) {
      throw new ReinsError(
        'unsupported_capability',
        'OpenClaw warm starts are for local gateways; this harness connects to a configured gateway.',
        { harness: 'openclaw', operation: 'warm' },
      );
    }
    if (count === 0) {
      // The pools this object started, and the one of its settings another Harness object may have
      // started (the daemon builds a Harness per session; the registry is process-wide).
      const own = await this.binary.resolve().then(
        (binary) => [this.launch(binary.path, this.options.warmCwd ?? process.cwd())],
        () => [],
      );
      const launches = [...this.warmed.values(), ...own];
      this.warmed.clear();
      await Promise.all(launches.map((launch) => openClawGateways.warm(launch, () => this.startReady(launch), 0)));
      return;
    }
    const launch = this.launch((await this.binary.resolve()).path, this.options.warmCwd ?? process.cwd());
    this.warmed.set(gatewayLaunchKey(launch), launch);
    await openClawGateways.warm(launch, () => this.startReady(launch), count);
  }

  /** A local gateway that has accepted one handshake (a probe connection, closed at once). */
  private async startReady(launch: GatewayLaunch): Promise<LocalGateway> {
    const gateway = await startLocalGateway(launch);
    try {
      await this.openOn(gateway, this.probeConnection(gateway));
      return gateway;
    } catch (error) {
      await gateway.process.close();
      throw error;
    }
  }

  private probeConnection(endpoint: { url: string; token?: string }): GatewayConnection {
    return new GatewayConnection({
      url: endpoint.url,
      ...(endpoint.token ? { token: endpoint.token } : {}),
      requestTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_OPENCLAW_TIMEOUT_MS,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 180_000,
      onEvent: () => {},
    });
  }

  /** Opens `connection`, failing at once if the local gateway's process ends first; closes it after. */
  private async openOn(gateway: LocalGateway, connection: GatewayConnection): Promise<void> {
    try {
      await Promise.race([
        connection.open(),
        gateway.process.exited.then(() => {
          throw new ReinsError('process_exited', gateway.process.describeExit(), { harness: 'openclaw' });
        }),
      ]);
    } finally {
      await connection.close();
    }
  }

  /**
   * One short connection for sessions list and history: to the configured gateway, else to a running
   * shared local gateway of the same state, else to a throwaway local gateway on that state (the
   * sessions a local gateway kept are in the state directory its environment names, so any gateway
   * on that environment lists them).
   */
  private async withConnection<T>(fn: (connection: GatewayConnection) => Promise<T>, cwd?: string): Promise<T> {
    const configured = this.endpoint();
    let lease: GatewayLease | undefined;
    let throwaway: LocalGateway | undefined;
    if (!configured) {
      const launch = this.launch((await this.binary.resolve()).path, cwd ?? process.cwd());
      lease = this.options.shareProcess === false ? undefined : openClawGateways.leaseRunning(launch);
      if (!lease) throwaway = await startLocalGateway(launch);
    }
    const local = lease?.gateway ?? throwaway;
    const endpoint = configured ?? (local as LocalGateway);
    const connection = this.probeConnection(endpoint);
    try {
      if (!local) await connection.open();
      else {
        await Promise.race([
          connection.open(),
          local.process.exited.then(() => {
            throw new ReinsError('process_exited', local.process.describeExit(), { harness: 'openclaw' });
          }),
        ]);
      }
      return await fn(connection);
    } finally {
      await connection.close();
      await lease?.release();
      await throwaway?.process.close();
    }
  }

  async listSessions(options: { cwd?: string }): Promise<SessionSummary[]> {
    return this.withConnection(async (connection) => {
      const listed = await connection.request<{ sessions?: Record<string, unknown>[] }>('sessions.list', {
        limit: 200,
      });
      return (listed.sessions ?? [])
        .filter((row) => typeof row.key === 'string')
        .map((row) => ({
          nativeSessionId: row.key as string,
          ...(typeof row.displayName === 'string' ? { title: row.displayName } : {}),
          ...(typeof row.updatedAt === 'number' ? { updatedAt: row.updatedAt } : {}),
        }));
    }, options.cwd);
  }

  async history(nativeSessionId: string, options: { cwd?: string } = {}): Promise<Item[]> {
    return this.withConnection(async (connection) => {
      const history = await connection.request<{ messages?: unknown[] }>('chat.history', {
        sessionKey: nativeSessionId,
        limit: 1000,
      });
      return openClawHistoryItems(history.messages ?? []);
    }, options.cwd);
  }
}

export function createOpenClawHarness(options: OpenClawHarnessOptions = {}): Harness {
  return new OpenClawHarness(options);
}

export { OPENCLAW_IMPLEMENTED };
