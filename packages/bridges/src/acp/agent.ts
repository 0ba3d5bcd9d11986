// The ACP agent side of the bridge: one ACP connection in front of one Reins harness. Each ACP
// session is one Reins session (session.ts pumps its events). The transport is injected (any SDK
// Stream), so this runs over stdio (stdio.ts) or in memory.
//
// Session ids: the ACP session id IS the harness's native session id whenever the harness knows it
// when the session is created (every adapter so far does: Codex thread id, Claude Code's preset
// uuid, ACP agents' own ids), so `session/load` of that id works from any bridge process. A harness
// that learns its id only later gets a bridge-made `reins-<uuid>` instead, because an ACP session id
// cannot change; the native id is then sent in `session_info_update._meta.reins.nativeSessionId`,
// and the bridge's records map the made-up id to it for `session/load`, in this process and the next.
// The records also keep each session's model, effort and mode, so a resumed session runs as it ran.
// A fork (unstable session/fork, only where the harness implements fork) is a NEW session under the
// id the harness gives the copied conversation, never the source's. Opening a session is
// session-open.ts's, settings and modes settings.ts's, session/list (only where the harness lists its
// conversations) listing.ts's.
import { agentProtocolRouter } from '@agentclientprotocol/sdk/experimental/v2';
import { type AgentApp, agent, RequestError, type Stream } from '@agentclientprotocol/sdk/unstable';
import { type Effort, type Harness, type Posture, ReinsError, type SessionSpec } from '@reins/core';
import { HarnessFacts } from '../harness-facts.js';
import {
  DEFAULT_PERMISSION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  isImplemented,
  withDeadline,
} from '../lifecycle.js';
import { memoryRecords, type RecordStore } from '../records.js';
import { promptAnswer, toRequestError, toSettingError } from './answers.js';
import { type ListingContext, listAcpSessions } from './listing.js';
import { HARNESS_DEFAULT, modesOf } from './options.js';
import { type ClientPort, v1Port } from './port.js';
import { parseSetModel, promptInput, type SavedSettings, sessionSpecOf, settingRequestOf } from './requests.js';
import type { BridgeSession } from './session.js';
import { openBridgeSession } from './session-open.js';
import { applySetting, type SettingsContext, setMode } from './settings.js';
import { historyUpdates, takeConfigOptions } from './translate.js';
import { v2App } from './v2/agent.js';
import {
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  PROTOCOL_VERSION,
  type PromptResponse,
  RPC,
  type SessionConfigOption,
  type SessionModeState,
} from './wire.js';

export interface AcpBridgeOptions {
  harness: Harness;
  /** Applied to every session the client opens (ACP's session/new has no such fields). */
  defaults?: { model?: string; effort?: Effort; posture?: Posture };
  /** Deadline for everything but a prompt's turn (turns run as long as the work takes; cancel ends them). */
  requestTimeoutMs?: number;
  /** How long a permission request waits for the client before it counts as denied. */
  permissionTimeoutMs?: number;
  /** What the bridge remembers across processes (default: in memory only). */
  records?: RecordStore;
  /** Diagnostics; never stdout, which carries only protocol frames. */
  log?: (message: string) => void;
  version?: string;
}

export type SessionAnswer = { configOptions: SessionConfigOption[]; modes?: SessionModeState };

export class AcpBridge {
  private readonly sessions = new Map<string, BridgeSession>();
  private connection: ClientPort | undefined;
  private connected = false;
  readonly facts: HarnessFacts;
  private clientNotices = false;
  private closing: Promise<void> | undefined;
  readonly requestTimeoutMs: number;
  private readonly records: RecordStore;
  private readonly log: (message: string) => void;

  constructor(private readonly options: AcpBridgeOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.records = options.records ?? memoryRecords();
    this.log = options.log ?? (() => {});
    this.facts = new HarnessFacts(options.harness, this.requestTimeoutMs, this.log);
  }

  get harness(): Harness {
    return this.options.harness;
  }

  /** The version the bridge reports at initialize. */
  get version(): string {
    return this.options.version ?? '0.1.0';
  }

  /** Open sessions (for diagnostics and tests). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serves one ACP client over `stream`; closing the stream closes every session. The client's
   * `protocolVersion` at initialize chooses v1 (this file) or v2 (v2/agent.ts), served side by side by
   * the SDK's router: the highest version the bridge has at or below the one asked for.
   */
  connect(stream: Stream): { closed: Promise<void> } {
    if (this.connected) throw new Error('An AcpBridge serves one connection.');
    this.connected = true;
    const routed = agentProtocolRouter()
      .withV1({
        connect: (routedStream) => {
          const connection = this.app().connect(routedStream);
          this.connection = v1Port(connection);
          return connection;
        },
      })
      .withV2({
        connect: (routedStream) => {
          const { connection, port } = v2App(this).connect(routedStream);
          this.connection = port;
          return connection;
        },
      })
      .connect(stream);
    void routed.closed.then(() => this.close());
    return routed;
  }

  /** The client's port, once it has initialized. */
  get port(): ClientPort | undefined {
    return this.connection;
  }

  /** Closes every session (their harness processes end with them); idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const open = [...this.sessions.values()];
      this.sessions.clear();
      await Promise.all(open.map((session) => session.close().catch(() => {})));
      this.connection?.close();
    })();
    return this.closing;
  }

  private app(): AgentApp {
    return agent({ name: 'reins-acp-bridge' })
      .onRequest('initialize', ({ params }) =>
        this.guard('initialize', () => this.initialize(params.clientCapabilities)),
      )
      .onRequest('session/new', ({ params }) =>
        this.guard('session/new', () => this.newSession(params.cwd, params.mcpServers)),
      )
      .onRequest('session/load', ({ params }) =>
        this.guard('session/load', () => this.resumeSession(params.sessionId, params.cwd, params.mcpServers, true)),
      )
      .onRequest('session/resume', ({ params }) =>
        this.guard('session/resume', () =>
          this.resumeSession(params.sessionId, params.cwd, params.mcpServers ?? [], false),
        ),
      )
      .onRequest('session/fork', ({ params }) =>
        this.guard('session/fork', () => this.forkSession(params.sessionId, params.cwd, params.mcpServers ?? [])),
      )
      .onRequest('session/prompt', ({ params, signal }) =>
        this.guard('session/prompt', () => this.prompt(params.sessionId, params.prompt, signal)),
      )
      .onNotification('session/cancel', ({ params }) => this.cancel(params.sessionId))
      .onRequest('session/set_config_option', ({ params }) =>
        this.guardSetting('session/set_config_option', async () => {
          const session = this.sessionFor(params.sessionId);
          const request = settingRequestOf(params.configId, 'value' in params ? params.value : undefined);
          return { configOptions: await applySetting(this.settingsContext(), session, request) };
        }),
      )
      .onRequest('session/set_model', parseSetModel, ({ params }) =>
        // Not in the 2.4.0 schema, but clients that predate config options still send it.
        this.guardSetting('session/set_model', async () => {
          await applySetting(this.settingsContext(), this.sessionFor(params.sessionId), {
            setting: 'model',
            model: params.modelId,
          });
          return {};
        }),
      )
      .onRequest('session/set_mode', ({ params }) =>
        this.guardSetting('session/set_mode', () =>
          setMode(this.settingsContext(), this.sessionFor(params.sessionId), params.modeId),
        ),
      )
      .onRequest('session/list', ({ params }) =>
        this.guard('session/list', () => listAcpSessions(this.listingContext(), params)),
      )
      .onRequest('session/close', ({ params }) =>
        this.guard('session/close', () => this.closeSession(params.sessionId)),
      );
  }

  async guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toRequestError(error, operation);
    }
  }

  async guardSetting<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toSettingError(error, operation);
    }
  }

  /** Whether this client takes `notice` updates (v1: only if it said so; v2: baseline). */
  setClientNotices(notices: boolean): void {
    this.clientNotices = notices;
  }

  private async initialize(client: ClientCapabilities | undefined): Promise<InitializeResponse> {
    // Notices only for a client that said it can show them (ACP: an agent MUST NOT send them otherwise).
    this.clientNotices = client?.session?.notices !== undefined && client.session.notices !== null;
    void this.facts.catalog();
    const matrix = await this.facts.capabilities();
    const canResume = isImplemented(matrix, 'resume');
    const canFork = isImplemented(matrix, 'fork');
    // session/list where the adapter lists its conversations; no session/delete (Reins deletes none).
    const canList = this.harness.listSessions !== undefined && isImplemented(matrix, 'sessionList');
    return {
      // The bridge speaks protocol version 1 only; a client asking for more gets 1 (ACP negotiation).
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: canResume,
        promptCapabilities: { image: isImplemented(matrix, 'images'), audio: false, embeddedContext: false },
        sessionCapabilities: {
          close: {},
          ...(canResume ? { resume: {} } : {}),
          ...(canFork ? { fork: {} } : {}),
          ...(canList ? { list: {} } : {}),
        },
      },
      // The harness authenticates itself (Reins never handles credentials): no auth methods.
      authMethods: [],
      agentInfo: {
        name: 'reins-acp-bridge',
        title: `Reins: ${this.harness.displayName}`,
        version: this.version,
      },
    };
  }

  private specFor(cwd: string, mcpServers: McpServer[], saved?: SavedSettings): SessionSpec {
    return sessionSpecOf(cwd, mcpServers, this.options.defaults ?? {}, saved);
  }

  remember(bridged: BridgeSession): Promise<void> {
    const settings = bridged.state.settings;
    const native = bridged.state.nativeSessionId ?? bridged.session.nativeSessionId;
    return this.records.update(bridged.acpId, (known) => {
      const now = Date.now();
      const record = known ?? {
        id: bridged.acpId,
        cwd: bridged.spec.cwd,
        createdAtMs: now,
        updatedAtMs: now,
        turns: [],
      };
      return {
        ...record,
        ...(native ? { nativeSessionId: native } : {}),
        ...(settings.model ? { model: settings.model } : {}),
        ...(settings.effort ? { effort: settings.effort } : {}),
        mode: settings.posture,
        updatedAtMs: now,
      };
    });
  }

  /** Opens a session (session-open.ts). */
  private open(spec: SessionSpec, acpId: string | undefined, announced: boolean): Promise<BridgeSession> {
    return openBridgeSession(
      {
        harness: this.harness,
        facts: this.facts,
        requestTimeoutMs: this.requestTimeoutMs,
        permissionTimeoutMs: this.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
        sessions: this.sessions,
        connection: () => this.connection,
        clientNotices: () => this.clientNotices,
        closing: () => this.closing !== undefined,
        log: this.log,
        remember: (bridged) => this.remember(bridged),
      },
      spec,
      acpId,
      announced,
    );
  }

  private answerOf(bridged: BridgeSession): SessionAnswer {
    const modes = modesOf(bridged.state.settings);
    return { configOptions: takeConfigOptions(bridged.state), ...(modes ? { modes } : {}) };
  }

  async newSession(cwd: string, mcpServers: McpServer[]): Promise<SessionAnswer & { sessionId: string }> {
    const bridged = await this.open(this.specFor(cwd, mcpServers), undefined, false);
    const answer = this.answerOf(bridged);
    // After the answer is on the wire (it is written before the next macrotask), updates may name the id.
    setImmediate(() => bridged.announce());
    return { sessionId: bridged.acpId, ...answer };
  }

  /** session/load (history replayed as updates before the answer) and session/resume (no replay). */
  async resumeSession(
    sessionId: string,
    cwd: string,
    mcpServers: McpServer[],
    replay: boolean,
  ): Promise<SessionAnswer> {
    const record = await this.records.get(sessionId);
    const nativeId = this.nativeIdOf(sessionId, record?.nativeSessionId, 'session/load');
    // Loading a session this bridge has open replaces it (one Reins session per ACP id).
    await this.closeSession(sessionId);
    // A resumed session keeps the model, effort and mode it ran with.
    const spec: SessionSpec = { ...this.specFor(cwd, mcpServers, record), resume: { nativeSessionId: nativeId } };
    const bridged = await this.open(spec, sessionId, true).catch((error: unknown) => {
      // A harness that takes no model choice (Amp) reported the recorded model: it resumes without one.
      if (spec.model === undefined || !refusesField(error, 'model')) throw error;
      const { model: _reported, ...withoutModel } = spec;
      return this.open(withoutModel, sessionId, true);
    });
    if (replay && bridged.replayedItems === 0 && this.harness.history) {
      // The adapter replayed nothing itself (Codex resumes silently): read the stored conversation.
      try {
        const items = await withDeadline(this.harness.history(nativeId, { cwd }), this.requestTimeoutMs, 'history');
        for (const update of historyUpdates(items)) await bridged.send(update);
      } catch (error) {
        this.log(`session ${sessionId} resumed, but its history could not be replayed: ${String(error)}`);
      }
    }
    return this.answerOf(bridged);
  }

  /** The conversation behind an ACP session id (the records map bridge-made ids). */
  private nativeIdOf(sessionId: string, recorded: string | undefined, operation: string): string {
    const nativeId = recorded ?? this.sessions.get(sessionId)?.state.nativeSessionId ?? sessionId;
    if (sessionId.startsWith('reins-') && nativeId === sessionId) {
      throw new ReinsError(
        'resume_failed',
        `Session ${sessionId} was named by a bridge before its harness had an id, and no record says which conversation it is; use the native id that bridge reported (session_info_update _meta.reins.nativeSessionId).`,
        { operation },
      );
    }
    return nativeId;
  }

  /**
   * session/fork: a NEW session on a copy of the source's conversation (spec.resume.fork), on the
   * model, effort and mode the source runs with (or ran with, by its record). A harness that cannot
   * fork has no such method: -32601, as initialize advertised no sessionCapabilities.fork.
   */
  private async forkSession(
    sourceId: string,
    cwd: string,
    mcpServers: McpServer[],
  ): Promise<SessionAnswer & { sessionId: string }> {
    if (!isImplemented(await this.facts.capabilities(), 'fork')) throw RequestError.methodNotFound('session/fork');
    const record = await this.records.get(sourceId);
    const nativeId = this.nativeIdOf(sourceId, record?.nativeSessionId, 'session/fork');
    const live = this.sessions.get(sourceId)?.state.settings;
    // Claude Code lists `default` (the harness's own choice) as a model: it is no model to start on.
    const model = live?.model === HARNESS_DEFAULT ? undefined : live?.model;
    const saved = live ? { model, effort: live.effort, mode: live.posture } : record;
    const spec: SessionSpec = {
      ...this.specFor(cwd, mcpServers, saved),
      resume: { nativeSessionId: nativeId, fork: true },
    };
    const bridged = await this.open(spec, undefined, false);
    const answer = this.answerOf(bridged);
    setImmediate(() => bridged.announce());
    return { sessionId: bridged.acpId, ...answer };
  }

  sessionFor(sessionId: string): BridgeSession {
    const session = this.sessions.get(sessionId);
    if (!session) {
      throw new RequestError(RPC.resourceNotFound, `No open session ${sessionId}; create or load it first.`, {
        sessionId,
      });
    }
    return session;
  }

  private async prompt(
    sessionId: string,
    prompt: Parameters<typeof promptInput>[0],
    signal: AbortSignal,
  ): Promise<PromptResponse> {
    const bridged = this.sessionFor(sessionId);
    // A client that prompts a session knows its id: nothing about it needs holding back any more.
    bridged.announce();
    const input = promptInput(prompt);
    const sent = await withDeadline(bridged.session.send(input), this.requestTimeoutMs, 'send');
    // A client that abandons the request ($/cancel_request) wants the turn stopped, like session/cancel.
    const onAbort = () => void bridged.session.interrupt().catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    let terminal: Awaited<ReturnType<BridgeSession['waitForTurn']>>;
    try {
      terminal = await bridged.waitForTurn(sent.turnId);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    void this.remember(bridged);
    const answer = promptAnswer(terminal);
    if (!answer.ok) throw new RequestError(answer.error.code, answer.error.message, answer.error.data);
    return answer.response;
  }

  cancel(sessionId: string): void {
    const bridged = this.sessions.get(sessionId);
    if (!bridged) return;
    withDeadline(bridged.session.interrupt(), this.requestTimeoutMs, 'interrupt').catch((error: unknown) =>
      this.log(`interrupt of session ${sessionId} failed: ${String(error)}`),
    );
  }

  settingsContext(): SettingsContext {
    return {
      harnessId: this.harness.id,
      requestTimeoutMs: this.requestTimeoutMs,
      remember: (bridged) => this.remember(bridged),
      reopen: async (bridged, spec) => {
        this.sessions.delete(bridged.acpId);
        await withDeadline(bridged.close(), this.requestTimeoutMs, 'close');
        return this.open(spec, bridged.acpId, true);
      },
    };
  }

  listingContext(): ListingContext {
    return {
      harness: this.harness,
      records: this.records,
      folders: () => [process.cwd(), ...[...this.sessions.values()].map((bridged) => bridged.spec.cwd)],
      requestTimeoutMs: this.requestTimeoutMs,
      log: this.log,
      canList: () => this.facts.implements('sessionList'),
    };
  }

  async closeSession(sessionId: string): Promise<Record<string, never>> {
    const bridged = this.sessions.get(sessionId);
    if (!bridged) return {};
    this.sessions.delete(sessionId);
    await this.remember(bridged);
    await withDeadline(bridged.close(), this.requestTimeoutMs, 'close');
    return {};
  }
}

/** A spec field the harness refused (`unsupported_capability` naming it in `data.field`). */
function refusesField(error: unknown, field: string): boolean {
  const data = ReinsError.isInstance(error) && error.code === 'unsupported_capability' ? error.data : undefined;
  return (data as { field?: unknown } | undefined)?.field === field;
}
