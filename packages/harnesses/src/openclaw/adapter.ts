// The OpenClaw adapter: a Reins session is one gateway session key (`agent:<agent>:reins-<uuid>`)
// driven over an operator WebSocket connection (protocol v4). The gateway is either one that is
// already running (options.gateway or OPENCLAW_GATEWAY_URL / OPENCLAW_GATEWAY_TOKEN) or a local one
// that the session starts (`openclaw gateway run --bind loopback --auth token`) via HarnessProcess
// and stops on close.
//
// Decisions (openclaw 2026.9.6):
// - nativeSessionId is the gateway session key; resume reuses it (history and model live in the
//   gateway's SQLite and survive a gateway restart).
// - queue: Reins queues and sends the next chat.send after the run ended. The gateway's own default
//   queue mode for a busy session is "steer" (sessions.list `effectiveQueueMode`), which would merge
//   the message into the running run; so only `send(..., {mode:'steer'})` sends while a run is active,
//   with queueMode "steer".
// - turn usage and cost are read from the run's transcript rows (chat.history) after its terminal:
//   the live `agent` usage stream reports output tokens only (2026.9.6).
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute } from 'node:path';
import {
  type CapabilityMatrix,
  type DiscoveredBinary,
  type Discovery,
  type Effort,
  type Harness,
  type Health,
  type ImplementedCapabilities,
  type Item,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  SessionSpecSchema,
  type SessionSummary,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
  unsupportedModelError,
} from '@reins/core';
import { HarnessProcess } from '../runtime/child-process.js';
import { type BinarySpec, fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesFor } from '../runtime/evidence.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { GatewayConnection } from './connection.js';
import {
  beginOpenClawRun,
  createOpenClawTranslateState,
  type OpenClawTerminal,
  type OpenClawTranslateState,
  openClawHistoryItems,
  openClawRunUsage,
  translateOpenClawEvent,
} from './translate.js';
import type { GatewayEvent } from './wire.js';

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
}

export const OPENCLAW_BINARY: BinarySpec = { id: 'openclaw', names: ['openclaw'] };
export const OPENCLAW_TESTED_VERSIONS = ['2026.9.6'];
const SOURCE = 'openclaw.gateway';
const DEFAULT_TIMEOUT_MS = 30_000;
const USAGE_TIMEOUT_MS = 20_000;

export const OPENCLAW_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'native', // the session key, any gateway process
  interrupt: true,
  steer: 'native', // chat.send queueMode "steer"
  queue: 'adapter',
  liveModelSwitch: true, // sessions.patch {model}
  liveEffortSwitch: true, // sessions.patch {thinkingLevel}
  tokenDeltas: true,
  reasoningDeltas: false,
  images: false,
  usage: true,
  cost: 'provider', // reported by OpenClaw per transcript row
  contextWindow: false,
  sessionList: true,
  history: true,
  compaction: false,
  structuredOutput: false,
  approvals: false,
  fork: false,
  mcpStatus: false,
  subagents: false,
};

function unsupported(what: string, operation: string): ReinsError {
  return new ReinsError('unsupported_capability', what, { harness: 'openclaw', operation });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (isRecord(address) ? resolve(Number(address.port)) : reject(new Error('no port'))));
    });
  });
}

/** A local gateway owned by one session. */
export interface LocalGateway {
  url: string;
  token: string;
  process: HarnessProcess;
}

export async function startLocalGateway(input: {
  binaryPath: string;
  cwd: string;
  env: Record<string, string>;
  port?: number;
  commandPrefix?: string[];
  extraArgs?: string[];
}): Promise<LocalGateway> {
  const port = input.port ?? (await freePort());
  const token = randomBytes(16).toString('hex');
  const gatewayArgs = [
    'gateway',
    'run',
    '--port',
    String(port),
    '--bind',
    'loopback',
    '--auth',
    'token',
    '--token',
    token,
    '--allow-unconfigured',
    ...(input.extraArgs ?? []),
  ];
  const line = [...(input.commandPrefix ?? []), input.binaryPath];
  const command = line[0] as string;
  const prefix = line.slice(1);
  const process = await HarnessProcess.start({
    command,
    args: [...prefix, ...gatewayArgs],
    cwd: input.cwd,
    env: { OPENCLAW_NO_RESPAWN: '1', ...input.env },
    label: 'openclaw gateway run',
    harness: 'openclaw',
  });
  return { url: `ws://127.0.0.1:${port}`, token, process };
}

class OpenClawSession implements Session {
  readonly id = randomUUID();
  readonly harness = 'openclaw' as const;
  readonly nativeSessionId: string;
  private readonly stream: SessionEventStream;
  private readonly state: OpenClawTranslateState;
  private connection!: GatewayConnection;
  private gateway: LocalGateway | undefined;
  private activeTurn: string | undefined;
  private readonly queue: { turnId: string; input: TurnInput }[] = [];
  private turnCounter = 0;
  private closing = false;

  constructor(
    private readonly spec: SessionSpec,
    private readonly options: OpenClawHarnessOptions,
    sessionKey: string,
  ) {
    this.nativeSessionId = sessionKey;
    this.state = createOpenClawTranslateState(sessionKey);
    this.stream = new SessionEventStream({ harness: 'openclaw', sessionId: this.id });
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  async start(
    endpoint: { url: string; token?: string },
    gateway: LocalGateway | undefined,
    binary: DiscoveredBinary | undefined,
  ) {
    this.gateway = gateway;
    this.connection = new GatewayConnection({
      url: endpoint.url,
      ...(endpoint.token ? { token: endpoint.token } : {}),
      requestTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 180_000,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
      onEvent: (event, at) => this.onEvent(event, at),
      onStray: (frame, at) =>
        this.stream.emit({ type: 'passthrough', frame }, { at, native: { source: SOURCE, frame } }),
      onClose: (error) => this.onLost(error),
    });
    gateway?.process.exited.then(() => {
      if (!this.closing)
        this.onLost(new ReinsError('process_exited', gateway.process.describeExit(), { harness: 'openclaw' }));
    });
    try {
      const opening = this.connection.open();
      const hello = gateway
        ? await Promise.race([
            opening,
            gateway.process.exited.then(() => {
              throw new ReinsError('process_exited', gateway.process.describeExit(), {
                harness: 'openclaw',
                operation: 'start',
              });
            }),
          ])
        : await opening;
      if (this.spec.resume && !(await this.keyExists(this.nativeSessionId))) {
        throw new ReinsError(
          'resume_failed',
          `The OpenClaw gateway has no session ${this.nativeSessionId}; refusing a silent fresh start.`,
          { harness: 'openclaw', operation: 'resume' },
        );
      }
      this.stream.emit({
        type: 'session.started',
        cwd: this.spec.cwd,
        ...(binary ? { binaryPath: binary.path } : {}),
        ...(hello.server?.version ? { harnessVersion: hello.server.version } : {}),
        ...(this.spec.model ? { model: this.spec.model } : {}),
      });
      this.stream.emit({ type: 'session.updated', nativeSessionId: this.nativeSessionId });
      if (this.spec.model) await this.setModel(this.spec.model);
      this.stream.emit({ type: 'session.status', status: 'idle' });
    } catch (error) {
      this.closing = true;
      await this.connection.close();
      await gateway?.process.close();
      throw error;
    }
  }

  private async keyExists(key: string): Promise<boolean> {
    const listed = await this.connection.request<{ sessions?: { key?: string }[] }>('sessions.list', { limit: 1000 });
    return (listed.sessions ?? []).some((row) => row.key === key);
  }

  private onEvent(frame: GatewayEvent, at: number): void {
    const { events, terminal } = translateOpenClawEvent(this.state, frame);
    const native = { source: SOURCE, method: frame.event, frame };
    for (const payload of events) this.stream.emit(payload, { at, native });
    if (terminal) void this.finishRun(terminal, { at, native });
  }

  /** The run ended: read its usage from the transcript, then emit the one terminal. */
  private async finishRun(terminal: OpenClawTerminal, meta: { at: number; native: ReinsEvent['native'] }) {
    let usage: ReturnType<typeof openClawRunUsage>;
    try {
      // Bounded: the terminal must not wait on a busy gateway's bookkeeping for long.
      const history = await this.connection.request<{ messages?: unknown[] }>(
        'chat.history',
        { sessionKey: this.nativeSessionId, limit: 50 },
        Math.min(this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS, USAGE_TIMEOUT_MS),
      );
      usage = openClawRunUsage(history.messages ?? [], terminal.runId);
    } catch {
      usage = undefined; // absent, not zero
    }
    if (this.activeTurn === undefined || this.state.runId !== terminal.runId) return;
    if (usage) this.stream.emit({ type: 'usage.updated', ...usage });
    this.stream.emit({ type: 'session.status', status: 'idle' });
    this.stream.emit(
      {
        type: 'turn.completed',
        outcome: terminal.outcome,
        ...(usage ? { usage } : {}),
        ...(terminal.stopReason ? { stopReason: terminal.stopReason } : {}),
      },
      meta,
    );
    this.activeTurn = undefined;
    this.state.runId = undefined;
    this.startNextQueued();
  }

  private onLost(error: ReinsError): void {
    if (this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    void this.connection.close();
    void this.gateway?.process.close();
    this.stream.close('process_exited', error.toInfo());
  }

  private async startTurn(input: TurnInput, turnId: string): Promise<SendResult> {
    const runId = randomUUID();
    beginOpenClawRun(this.state, runId);
    this.activeTurn = turnId;
    this.stream.startTurn(input, { turnId });
    try {
      await this.connection.request('chat.send', {
        sessionKey: this.nativeSessionId,
        message: input.text,
        idempotencyKey: runId,
      });
    } catch (error) {
      const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'openclaw', operation: 'chat.send' });
      if (this.activeTurn === turnId && !this.stream.isClosed) {
        this.stream.emit({ type: 'turn.completed', outcome: { status: 'failed', error: reinsError.toInfo() } });
        this.activeTurn = undefined;
        this.state.runId = undefined;
      }
      throw reinsError;
    }
    return { turnId, delivery: 'started' };
  }

  private startNextQueued(): void {
    if (this.activeTurn !== undefined || this.closing) return;
    const next = this.queue.shift();
    if (next) this.startTurn(next.input, next.turnId).catch(() => {});
  }

  async send(raw: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    const parsed = TurnInputSchema.safeParse(typeof raw === 'string' ? { text: raw } : raw);
    if (!parsed.success || parsed.data.text.trim() === '') {
      throw new ReinsError('invalid_input', 'A turn needs text.', { harness: 'openclaw', operation: 'send' });
    }
    const input = parsed.data;
    if (input.images?.length) throw unsupported('Reins does not send images to OpenClaw yet.', 'send');
    if (options.outputSchema ?? this.spec.outputSchema) throw unsupported('OpenClaw has no structured output.', 'send');
    if (this.closing)
      throw new ReinsError('process_exited', 'This OpenClaw session is closed.', { harness: 'openclaw' });
    if (this.activeTurn === undefined && this.queue.length === 0) return this.startTurn(input, this.nextTurnId());
    if (options.mode === 'steer' && this.activeTurn !== undefined) {
      await this.connection.request('chat.send', {
        sessionKey: this.nativeSessionId,
        message: input.text,
        idempotencyKey: randomUUID(),
        queueMode: 'steer',
      });
      return { turnId: this.activeTurn, delivery: 'steered' };
    }
    const turnId = this.nextTurnId();
    this.queue.push({ turnId, input });
    return { turnId, delivery: 'queued' };
  }

  private nextTurnId(): string {
    this.turnCounter++;
    return `turn_${this.turnCounter}`;
  }

  async interrupt(): Promise<void> {
    const runId = this.state.runId;
    if (this.activeTurn === undefined || !runId || this.closing) return;
    this.state.interruptRequested = true;
    await this.connection.request('chat.abort', { sessionKey: this.nativeSessionId, runId });
  }

  async setModel(model: string): Promise<SettingChange> {
    try {
      await this.connection.request('sessions.patch', { key: this.nativeSessionId, model });
    } catch (error) {
      const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'openclaw' });
      if (reinsError.code === 'invalid_input' || /model/i.test(reinsError.message)) {
        throw unsupportedModelError(model, reinsError.message, { harness: 'openclaw', operation: 'setModel' });
      }
      throw reinsError;
    }
    this.stream.emit({ type: 'session.updated', model });
    return { applied: this.activeTurn === undefined ? 'live' : 'next_turn' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    await this.connection.request('sessions.patch', { key: this.nativeSessionId, thinkingLevel: effort });
    this.stream.emit({ type: 'session.updated', effort });
    return { applied: this.activeTurn === undefined ? 'live' : 'next_turn' };
  }

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw unsupported(
      'Reins does not surface OpenClaw approvals yet; its tools ran without prompts in 2026.9.6.',
      'respondToPermission',
    );
  }

  async close(): Promise<void> {
    if (this.closing) {
      await this.gateway?.process.close();
      return;
    }
    this.closing = true;
    this.queue.length = 0;
    await this.connection.close();
    await this.gateway?.process.close();
    this.stream.close('requested');
  }
}

class OpenClawHarness implements Harness {
  readonly id = 'openclaw' as const;
  readonly displayName = 'OpenClaw';
  private discovered: Promise<DiscoveredBinary> | undefined;

  constructor(private readonly options: OpenClawHarnessOptions) {}

  private env(additions?: Record<string, string>) {
    return mergeEnv(this.options.baseEnv, additions);
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

  private binary(): Promise<DiscoveredBinary> {
    this.discovered ??= (
      this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, OPENCLAW_BINARY, 'explicit', this.env())
        : locateBinary(OPENCLAW_BINARY, this.env())
    ).catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  async discover(): Promise<Discovery> {
    try {
      return { found: true, binary: await this.binary() };
    } catch (error) {
      return {
        found: false,
        searched: this.options.binaryPath ? [this.options.binaryPath] : ['REINS_OPENCLAW_BIN', 'PATH'],
        hint: `${ReinsError.from(error, 'binary_not_found').message} Install it with \`npm install -g openclaw\` (needs Node >= 24.16).`,
      };
    }
  }

  async health(): Promise<Health> {
    const discovery = await this.discover();
    if (!discovery.found && !this.endpoint()) {
      return { status: 'not_installed', message: discovery.hint, fix: 'npm install -g openclaw' };
    }
    // With a gateway to connect to, the local binary is not what sessions use.
    const unanswered = discovery.found && !this.endpoint() ? failedProbeHealth(discovery.binary) : undefined;
    return unanswered ?? { status: 'ready', ...(discovery.found ? { binary: discovery.binary } : {}) };
  }

  async capabilities(): Promise<CapabilityMatrix> {
    const discovery = await this.discover();
    return capabilitiesFor({
      harness: 'openclaw',
      implemented: OPENCLAW_IMPLEMENTED,
      ...(discovery.found ? { binary: discovery.binary } : {}),
    });
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const parsed = SessionSpecSchema.safeParse(raw);
    if (!parsed.success)
      throw new ReinsError('invalid_input', `Invalid session spec: ${parsed.error.message}`, { harness: 'openclaw' });
    const spec = parsed.data;
    if (!isAbsolute(spec.cwd) || !existsSync(spec.cwd)) {
      throw new ReinsError('invalid_input', `The session cwd ${spec.cwd} must be an existing absolute directory.`, {
        harness: 'openclaw',
      });
    }
    if (spec.posture === 'ask')
      throw unsupported('Reins does not surface OpenClaw approvals yet; use posture "bypass".', 'createSession');
    if (spec.outputSchema) throw unsupported('OpenClaw has no structured output.', 'createSession');
    if (spec.mcpServers?.length)
      throw unsupported('OpenClaw sessions do not take per-session MCP servers.', 'createSession');
    const key = spec.resume?.nativeSessionId ?? `agent:${this.options.agentId ?? 'main'}:reins-${randomUUID()}`;
    const session = new OpenClawSession(spec, this.options, key);
    const endpoint = this.endpoint();
    if (endpoint) {
      await session.start(endpoint, undefined, undefined);
      return session;
    }
    const binary = await this.binary();
    const gateway = await startLocalGateway({
      binaryPath: binary.path,
      cwd: spec.cwd,
      env: this.env(spec.env),
      ...(this.options.gatewayPort ? { port: this.options.gatewayPort } : {}),
      ...(this.options.gatewayCommandPrefix ? { commandPrefix: this.options.gatewayCommandPrefix } : {}),
      ...(this.options.extraArgs ? { extraArgs: this.options.extraArgs } : {}),
    });
    await session.start(gateway, gateway, binary);
    return session;
  }

  /** One short connection to a running gateway; sessions list and history need one. */
  private async withConnection<T>(fn: (connection: GatewayConnection) => Promise<T>): Promise<T> {
    const endpoint = this.endpoint();
    if (!endpoint) {
      throw unsupported(
        'Listing OpenClaw sessions or reading history needs a running gateway: set options.gateway or OPENCLAW_GATEWAY_URL.',
        'listSessions',
      );
    }
    const connection = new GatewayConnection({
      url: endpoint.url,
      ...(endpoint.token ? { token: endpoint.token } : {}),
      requestTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 180_000,
      onEvent: () => {},
    });
    await connection.open();
    try {
      return await fn(connection);
    } finally {
      await connection.close();
    }
  }

  async listSessions(_options: { cwd?: string }): Promise<SessionSummary[]> {
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
    });
  }

  async history(nativeSessionId: string): Promise<Item[]> {
    return this.withConnection(async (connection) => {
      const history = await connection.request<{ messages?: unknown[] }>('chat.history', {
        sessionKey: nativeSessionId,
        limit: 1000,
      });
      return openClawHistoryItems(history.messages ?? []);
    });
  }
}

export function createOpenClawHarness(options: OpenClawHarnessOptions = {}): Harness {
  return new OpenClawHarness(options);
}
