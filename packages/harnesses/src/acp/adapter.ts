// The Harness object for any ACP agent, parameterized by a preset: discovery, health,
// capabilities (what the agent advertises in initialize), models, session list and history,
// sign-in (auth.ts), and sessions (new, resumed, or forked with session/fork where advertised).
// Sessions with the same binary, arguments and environment share one agent process when the preset
// allows it (ACP is multi-session by design; the cwd goes on session/new), and `warm(n)` keeps
// initialised agents ready: both through the process-wide registry in hosts.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdvertisedCapabilities,
  assertValidSchema,
  type CapabilityMatrix,
  type DiscoveredBinary,
  type Discovery,
  type Harness,
  type HarnessAuth,
  type HarnessId,
  type Health,
  type Item,
  isRecord,
  type ModelInfo,
  ReinsError,
  type Session,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { acceptSessionSpec, HarnessBinary, type SpecSupport } from '../runtime/chassis/index.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesFor } from '../runtime/evidence.js';
import { type HarnessOptions, mergeEnv, workspaceConfinement } from '../runtime/index.js';
import { createAcpAuth } from './auth.js';
import { AcpConnection, type AcpLaunch } from './connection.js';
import { type AcpLease, acpHosts, acpLaunchKey } from './hosts.js';
import { ACP_IMPLEMENTED } from './implemented.js';
import type { AcpPreset } from './preset.js';
import { AcpSession } from './session.js';
import { AcpSettings } from './settings.js';
import { createTranslateState, finishReplay, translateUpdate } from './translate.js';
import type { AcpAgentCapabilities, ListSessionsResponse, SessionSetupResponse, SessionUpdate } from './wire.js';

export interface AcpHarnessOptions extends HarnessOptions {
  /** Auth method id to authenticate with when the agent lists it in initialize. */
  authMethod?: string;
  /** Share one agent process between sessions with the same launch (default: the preset's multiSession). */
  shareProcess?: boolean;
  /**
   * Arguments between the binary and the agent's own: the script when `binaryPath` is a Node
   * binary (`node .../gemini.js --acp`), as the testkit's pinned JS CLIs are launched.
   */
  binaryArgs?: string[];
  /** How long a sign-in waits for an `authenticate` the agent answers at once (ms, default 1 000). */
  loginSettleMs?: number;
  /**
   * Ask the agent for ACP v2 (the draft) at initialize; an agent that only speaks v1 answers 1 and is
   * driven as v1. Default 1 (acp/v2.ts, docs/architecture/acp.md).
   */
  protocolVersion?: 1 | 2;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * What every ACP agent is offered of the session spec (docs/architecture/contract.md, "Harness and
 * session": every field honoured or refused): model and effort through config options, resume
 * through session/load or resume, system prompt additions at the head of the first prompt, MCP
 * servers in session/new. `ephemeral` depends on the agent (session/delete, checked once it has
 * initialized); `allowedTools` on the preset (`allowedToolsMeta`).
 */
export function acpSpecSupport(preset: AcpPreset): SpecSupport {
  return {
    model: true,
    effort: true,
    resume: true,
    // workspace: Reins' own confinement (runtime/confinement.ts); ACP agents have no sandbox that works here.
    postures: ['bypass', 'ask', 'workspace'],
    ephemeral: true,
    allowedTools: preset.allowedToolsMeta !== undefined,
    systemPrompt: true,
    mcpServers: true,
    // session/fork where the agent advertises sessionCapabilities.fork (checked once it has initialized).
    fork: true,
  };
}

/** The agent's initialize answer -> the `advertised` layer. Keys the protocol says nothing about stay unknown. */
export function advertisedFrom(capabilities: AcpAgentCapabilities | undefined): AdvertisedCapabilities {
  const caps = capabilities ?? {};
  const session = caps.sessionCapabilities ?? {};
  return {
    resume: caps.loadSession === true || Boolean(session.resume),
    fork: Boolean(session.fork),
    sessionList: Boolean(session.list),
    history: caps.loadSession === true,
    images: caps.promptCapabilities?.image === true,
    // session/cancel is part of every ACP agent; steering is in no ACP version.
    interrupt: true,
    steer: false,
  };
}

export class AcpHarness implements Harness {
  readonly id: HarnessId;
  readonly displayName: string;
  private readonly found: HarnessBinary;
  /** Sign-in as the agent offers it (auth.ts): status from session/new, login through `authenticate`. */
  readonly auth: HarnessAuth;
  private advertised: { sha256: string; capabilities: AcpAgentCapabilities | undefined } | undefined;

  constructor(
    readonly preset: AcpPreset,
    private readonly options: AcpHarnessOptions = {},
  ) {
    this.id = preset.id;
    this.displayName = preset.displayName;
    this.found = new HarnessBinary(preset.binary, options, `Install ${preset.displayName} or set its path.`);
    this.auth = createAcpAuth({
      harness: this.id,
      displayName: this.displayName,
      open: async (cwd) =>
        AcpConnection.open(this.launch(await this.binary(), { cwd }), { ...this.connectOptions(), terminalAuth: true }),
      invocation: async () => ({ command: (await this.binary()).path, args: this.options.binaryArgs ?? [] }),
      ...(options.loginSettleMs !== undefined ? { loginSettleMs: options.loginSettleMs } : {}),
    });
  }

  private get timeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private baseEnv(): Record<string, string | undefined> {
    return this.options.baseEnv ?? process.env;
  }

  /** Kept while its file is unchanged, found again after an upgrade (harness-binary.ts). */
  private binary(): Promise<DiscoveredBinary> {
    return this.found.resolve();
  }

  async discover(): Promise<Discovery> {
    try {
      return { found: true, binary: await this.binary() };
    } catch (error) {
      const reins = ReinsError.from(error, 'binary_not_found', { harness: this.id });
      return { found: false, searched: this.preset.binary.names, hint: reins.message };
    }
  }

  private launch(binary: DiscoveredBinary, spec: SessionSpec): AcpLaunch {
    const agentArgs = [...this.preset.args(spec), ...(this.options.extraArgs ?? [])];
    const args = [...(this.options.binaryArgs ?? []), ...agentArgs];
    const env = mergeEnv(this.baseEnv(), { ...this.preset.env?.(spec), ...spec.env });
    const confine =
      spec.posture === 'workspace'
        ? workspaceConfinement({
            harness: this.id,
            displayName: this.displayName,
            cwd: spec.cwd,
            env,
            ...(this.preset.binary.stateFolders ? { stateFolders: this.preset.binary.stateFolders } : {}),
          })
        : undefined;
    return {
      harness: this.id,
      command: binary.path,
      args,
      cwd: spec.cwd,
      env,
      label: [this.preset.binary.names[0] ?? this.id, ...agentArgs].join(' '),
      ...(this.options.tap ? { tap: this.options.tap } : {}),
      ...(confine ? { confine } : {}),
    };
  }

  private connectOptions() {
    return {
      requestTimeoutMs: this.timeoutMs,
      ...(this.options.authMethod ? { authMethod: this.options.authMethod } : {}),
      ...(this.options.protocolVersion ? { protocolVersion: this.options.protocolVersion } : {}),
    };
  }

  /** What fixes an agent process at spawn, as the registry's key (the cwd is per session: session/new). */
  private launchKey(launch: AcpLaunch): string {
    return acpLaunchKey({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      // A confined agent serves only sessions of the same cwd and folders.
      ...(launch.confine ? { confine: launch.confine.writable } : {}),
      requestTimeoutMs: this.timeoutMs,
      authMethod: this.options.authMethod,
      tap: this.options.tap,
      ...(this.options.protocolVersion ? { protocolVersion: this.options.protocolVersion } : {}),
    });
  }

  /**
   * A process for a session's launch: the shared one of its launch settings when sharing is on (the
   * spawn cwd is the first session's; later sessions name their own in session/new), else its own.
   */
  private acquire(launch: AcpLaunch, resumeSessionId: string | undefined): Promise<AcpLease> {
    const share = this.options.shareProcess ?? this.preset.multiSession;
    return acpHosts.lease(this.launchKey(launch), () => AcpConnection.open(launch, this.connectOptions()), {
      share,
      ...(resumeSessionId !== undefined ? { resumeSessionId } : {}),
    });
  }

  /**
   * Keeps `count` initialised agents with no session ready (docs/architecture/contract.md, "Warm
   * starts and shared processes"), for this harness's launch settings with no `spec.env` and a spec
   * that adds no launch arguments (a Gemini `--model` is one); other sessions start cold.
   */
  async warm(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 0) {
      throw new ReinsError('invalid_input', `warm needs a whole number of processes (0 or more), got ${count}.`, {
        harness: this.id,
        operation: 'warm',
      });
    }
    const launch = this.launch(await this.binary(), { cwd: process.cwd() });
    await acpHosts.warm(this.launchKey(launch), () => AcpConnection.open(launch, this.connectOptions()), count);
  }

  /** A throwaway process for a one-off question (capabilities, list, history, models). */
  private async probe<T>(cwd: string, use: (connection: AcpConnection) => Promise<T>): Promise<T> {
    const binary = await this.binary();
    const connection = await AcpConnection.open(this.launch(binary, { cwd }), this.connectOptions());
    try {
      this.advertised = { sha256: binary.sha256, capabilities: connection.initializeResponse?.agentCapabilities };
      return await use(connection);
    } finally {
      await connection.close();
    }
  }

  async health(): Promise<Health> {
    const discovery = await this.discover();
    if (!discovery.found) {
      return { status: 'not_installed', message: discovery.hint, fix: `Install ${this.displayName} or set its path.` };
    }
    const unanswered = failedProbeHealth(discovery.binary);
    if (unanswered) return unanswered;
    try {
      const methods = await this.probe(process.cwd(), async (connection) => connection.authMethods);
      return {
        status: 'ready',
        binary: discovery.binary,
        ...(methods.length > 0 ? { authMethods: methods.map((m) => m.id) } : {}),
      };
    } catch (error) {
      const reins = ReinsError.from(error, 'harness_unhealthy', { harness: this.id });
      return {
        status: reins.code === 'auth_required' ? 'auth_required' : 'unhealthy',
        binary: discovery.binary,
        message: reins.message,
      };
    }
  }

  async capabilities(): Promise<CapabilityMatrix> {
    const binary = await this.binary();
    if (this.advertised?.sha256 !== binary.sha256) {
      await this.probe(process.cwd(), async () => undefined).catch(() => undefined);
    }
    const advertised =
      this.advertised?.sha256 === binary.sha256 ? advertisedFrom(this.advertised.capabilities) : undefined;
    // Observed comes from the evidence store (the conformance suite's records for this binary).
    return capabilitiesFor({
      harness: this.id,
      implemented: ACP_IMPLEMENTED,
      ...(advertised ? { advertised } : {}),
      binary,
    });
  }

  /** The raw initialize capabilities of the installed agent (for evidence and diagnostics). */
  async agentCapabilities(): Promise<AcpAgentCapabilities | undefined> {
    await this.capabilities();
    return this.advertised?.capabilities;
  }

  async models(): Promise<ModelInfo[]> {
    // ACP lists models per session only: open one in an empty temp dir, read it, close it.
    const dir = await mkdtemp(join(tmpdir(), 'reins-acp-models-'));
    try {
      return await this.probe(dir, async (connection) => {
        const setup = await connection.request<SessionSetupResponse>('session/new', { cwd: dir, mcpServers: [] });
        const answer: SessionSetupResponse = isRecord(setup) ? setup : {};
        const sessionId = typeof answer.sessionId === 'string' ? answer.sessionId : undefined;
        const hide = this.preset.quirks.hideModel;
        // The same reading of the agent's lists as a live session's (settings.ts).
        const settings = new AcpSettings({
          harness: this.id,
          label: this.displayName,
          request: (method, params) => connection.request(method, params),
          nativeSessionId: () => sessionId,
          current: {},
          emit: () => {},
          ...(hide ? { hideModel: (model: string) => hide(model, this.baseEnv()) } : {}),
        });
        settings.take(answer);
        settings.current();
        if (connection.initializeResponse?.agentCapabilities?.sessionCapabilities?.close && sessionId) {
          await connection.request('session/close', { sessionId }).catch(() => {});
        }
        return settings.availableModels().map((model) => ({
          id: model.id,
          displayName: model.displayName,
          ...(model.isDefault ? { isDefault: true } : {}),
        }));
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async listSessions(options: { cwd?: string }): Promise<SessionSummary[]> {
    return this.probe(options.cwd ?? process.cwd(), async (connection) => {
      if (!connection.initializeResponse?.agentCapabilities?.sessionCapabilities?.list) {
        throw new ReinsError(
          'unsupported_capability',
          `${this.displayName} does not list sessions (no sessionCapabilities.list).`,
          {
            harness: this.id,
            operation: 'listSessions',
          },
        );
      }
      const out: SessionSummary[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const answer = await connection.request<ListSessionsResponse>('session/list', {
          ...(options.cwd ? { cwd: options.cwd } : {}),
          ...(cursor ? { cursor } : {}),
        });
        const sessions = isRecord(answer) && Array.isArray(answer.sessions) ? answer.sessions : [];
        for (const info of sessions) {
          if (!isRecord(info) || typeof info.sessionId !== 'string') continue;
          const summary: SessionSummary = { nativeSessionId: info.sessionId, cwd: info.cwd };
          if (typeof info.title === 'string' && info.title) summary.title = info.title;
          const updated = typeof info.updatedAt === 'string' ? Date.parse(info.updatedAt) : Number.NaN;
          if (!Number.isNaN(updated)) summary.updatedAt = updated;
          out.push(summary);
        }
        cursor = isRecord(answer) && typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
        if (!cursor) break;
      }
      return out;
    });
  }

  /** The conversation as the agent replays it on session/load, as settled items. */
  async history(nativeSessionId: string, options: { cwd?: string } = {}): Promise<Item[]> {
    const cwd = options.cwd ?? process.cwd();
    return this.probe(cwd, async (connection) => {
      if (connection.initializeResponse?.agentCapabilities?.loadSession !== true) {
        throw new ReinsError('unsupported_capability', `${this.displayName} cannot replay history (no loadSession).`, {
          harness: this.id,
          operation: 'history',
        });
      }
      const state = createTranslateState(this.preset.quirks.translate);
      const items: Item[] = [];
      const collect = (payloads: ReturnType<typeof translateUpdate>) => {
        for (const payload of payloads) if (payload.type === 'item.completed') items.push(payload.item);
      };
      connection.register(nativeSessionId, {
        update: (update: SessionUpdate) => collect(translateUpdate(state, update, { inTurn: false })),
        request: async () => {
          throw new ReinsError('invalid_input', 'history replay does not run tools');
        },
        passthrough: () => {},
        warn: () => {},
        ended: () => {},
      });
      try {
        await connection.request('session/load', { sessionId: nativeSessionId, cwd, mcpServers: [] });
      } catch (error) {
        throw ReinsError.from(error, 'resume_failed', { harness: this.id, operation: 'history' });
      }
      await new Promise((resolve) => setImmediate(resolve));
      collect(finishReplay(state));
      return items;
    });
  }

  async createSession(raw: SessionSpec): Promise<Session> {
    const spec = acceptSessionSpec(raw, acpSpecSupport(this.preset), this);
    if (spec.outputSchema) assertValidSchema(spec.outputSchema);
    const binary = await this.binary();
    const launch = this.launch(binary, spec);
    const resumeId = spec.resume && !spec.resume.fork ? spec.resume.nativeSessionId : undefined;
    const { connection, release } = await this.acquire(launch, resumeId);
    const capabilities = connection.initializeResponse?.agentCapabilities;
    this.advertised = { sha256: binary.sha256, capabilities };
    if (spec.ephemeral && !capabilities?.sessionCapabilities?.delete) {
      await release();
      throw new ReinsError(
        'unsupported_capability',
        `Reins cannot honour ephemeral sessions (spec.ephemeral) on ${this.displayName}: the agent offers no session/delete (sessionCapabilities.delete), so the conversation would be kept; leave it out of the spec.`,
        { harness: this.id, operation: 'createSession', data: { field: 'ephemeral' } },
      );
    }
    if (spec.resume?.fork && !capabilities?.sessionCapabilities?.fork) {
      await release();
      throw new ReinsError(
        'unsupported_capability',
        `Reins cannot fork a conversation on ${this.displayName} (spec.resume.fork): the agent advertises no session/fork (sessionCapabilities.fork); resume it without fork instead.`,
        { harness: this.id, operation: 'createSession', data: { field: 'resume.fork' } },
      );
    }
    const agentVersion = connection.initializeResponse?.agentInfo?.version ?? binary.version;
    const sessionMeta = spec.allowedTools ? this.preset.allowedToolsMeta?.(spec.allowedTools) : undefined;
    const session = new AcpSession({
      harness: this.id,
      displayName: this.displayName,
      label: launch.label,
      connection,
      spec,
      quirks: this.preset.quirks,
      requestTimeoutMs: this.timeoutMs,
      ...(sessionMeta ? { sessionMeta } : {}),
      binaryPath: binary.path,
      ...(agentVersion ? { harnessVersion: agentVersion } : {}),
      env: launch.env,
      release,
    });
    try {
      await session.open();
    } catch (error) {
      await session.close().catch(() => {});
      throw ReinsError.from(error, 'protocol_error', { harness: this.id, operation: 'createSession' });
    }
    return session;
  }
}

export { ACP_IMPLEMENTED };
