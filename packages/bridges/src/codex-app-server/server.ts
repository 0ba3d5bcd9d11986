// The Codex app-server side of the bridge in front of one Reins harness: each Codex thread is one Reins
// session (thread.ts pumps its events); requests map onto the Session API (docs/architecture/bridges.md,
// "Conformance": thread/start -> createSession, thread/resume -> createSession({resume}), thread/fork
// -> its fork, turn/start -> send, thread/revert -> revert, ...), each family in its own file. The
// transport is injected (`send` a line, `receive` a line): stdio, sockets (several clients sharing
// the threads, clients.ts) or in memory.
//
// Thread ids: the thread id IS the harness's native session id whenever the harness knows it when
// the session is created (Claude Code's preset uuid, Codex's thread id, ACP agents' ids), so
// thread/resume of that id works from any bridge process. A harness that learns its id only later
// gets a bridge-made `reins-<uuid>` (a Codex thread id cannot change); the records map it to the
// native id for thread/resume, in this process and the next. A fork's thread id is the id the harness
// gives the NEW conversation (Claude Code: a uuid Reins picks; Codex: the forked thread's id).
import { type CapabilityKey, type Effort, type Harness, type Posture, ReinsError } from '@reins/core';
import { HarnessFacts } from '../harness-facts.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from '../lifecycle.js';
import { memoryRecords, type RecordStore, type TurnRecord } from '../records.js';
import { liveThreadFacts, type ThreadFacts, threadRecordOf } from './catalog.js';
import { clientSurfaceHandlers } from './client-surface.js';
import { type Client, Clients, initializeClient } from './clients.js';
import { CommandProcesses } from './command-exec.js';
import { type RpcConnection, RpcError } from './connection.js';
import { rpcErrorOf, unknownMethodError } from './errors.js';
import { FileSearches } from './file-search.js';
import { type ForkContext, forkThread } from './fork.js';
import { listMcpServerStatus, type McpStartupTiming, type McpStatusContext, watchMcpStartup } from './mcp-status.js';
import {
  listAllThreads,
  listItems,
  listLoaded,
  listModels,
  listTurns,
  type ReadContext,
  readThread,
  turnsOf,
} from './reads.js';
import { REFUSED_METHODS, refusalHandlers } from './refusals.js';
import { checkToolsNetwork, paramsObject, requiredString, type ThreadRequest, threadRequestOf } from './requests.js';
import { runShellCommand } from './shell-command.js';
import type { CompletedItemsView } from './state.js';
import type { BridgeThread } from './thread.js';
import { type ThreadsContext, threadAdminHandlers } from './thread-admin.js';
import { type OpenHow, openThread, threadAnswerOf } from './thread-open.js';
import { interruptTurn, startTurn, steerTurn, type TurnRequestContext, updateThreadSettings } from './turn-requests.js';
import {
  type InitializeResponse,
  RPC,
  type ThreadResumeResponse,
  type ThreadStartResponse,
  type Turn,
} from './wire.js';

export interface CodexAppServerBridgeOptions {
  harness: Harness;
  /** Applied to every thread unless its params say otherwise. */
  defaults?: { model?: string; effort?: Effort; posture?: Posture };
  /** The cwd of a thread whose params name none (Codex: the server's own). */
  cwd?: string;
  /** Deadline for everything but a turn (turns run as long as the work takes; interrupt ends them). */
  requestTimeoutMs?: number;
  /** How long an approval request waits for the client before it counts as declined. */
  permissionTimeoutMs?: number;
  /** How long a resume waits for a transcript the harness is still writing (default 3 s). */
  historySettleMs?: number;
  /** What turn/completed carries (default `summary`, as Codex sends it live). */
  itemsView?: CompletedItemsView;
  /** What the bridge remembers across processes (default: in memory only). */
  records?: RecordStore;
  /** How long a new thread's MCP servers are followed for mcpServer/startupStatus/updated. */
  mcpStartup?: McpStartupTiming;
  /** The harness's version, for the initialize userAgent. */
  harnessVersion?: string;
  /** Diagnostics; never the protocol channel. */
  log?: (message: string) => void;
  version?: string;
}

type Handler = (params: Record<string, unknown>, client: Client) => Promise<unknown>;

/** Methods served only where the harness's adapter implements a capability. */
const CAPABILITY_OF: Partial<Record<string, CapabilityKey>> = {
  'thread/fork': 'fork',
  'mcpServerStatus/list': 'mcpStatus',
};

export class CodexAppServerBridge {
  private readonly threads = new Map<string, BridgeThread>();
  /** Bridge-made thread ids -> the native id learned later (see the header). */
  private readonly nativeIds = new Map<string, string>();
  private readonly clients = new Clients();
  private readonly facts: HarnessFacts;
  private closing: Promise<void> | undefined;
  private readonly requestTimeoutMs: number;
  private readonly records: RecordStore;
  private readonly log: (message: string) => void;
  private readonly reads: ReadContext;

  constructor(private readonly options: CodexAppServerBridgeOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.log = options.log ?? (() => {});
    this.records = options.records ?? memoryRecords();
    this.facts = new HarnessFacts(options.harness, this.requestTimeoutMs, this.log);
    this.reads = {
      harness: options.harness,
      threads: this.threads,
      records: this.records,
      cwd: options.cwd ?? process.cwd(),
      requestTimeoutMs: this.requestTimeoutMs,
      historySettleMs: options.historySettleMs ?? 3_000,
      nativeIdOf: (threadId) => this.nativeIdOf(threadId),
      liveFacts: (thread) => this.liveFacts(thread),
      log: this.log,
    };
  }

  get harness(): Harness {
    return this.options.harness;
  }

  /** Open threads (for diagnostics and tests). */
  get threadCount(): number {
    return this.threads.size;
  }

  /**
   * Serves one more client: `send` writes a line to it; feed its lines to the returned `receive`, and
   * call `disconnect` when it goes away. When the last client leaves, the threads close (their
   * harness processes end; thread/resume reopens them), as Codex unloads threads nobody follows.
   */
  connect(send: (line: string) => void): {
    receive: (line: string) => void;
    connection: RpcConnection;
    disconnect: () => Promise<void>;
  } {
    const client: Client = this.clients.add({
      send,
      onRequest: (method, params) => this.dispatch(method, params, client),
      onNotification: (method) => {
        // `initialized` is the only client notification; anything else has nothing to act on.
        if (method !== 'initialized') this.log(`ignored the client notification ${method}`);
      },
      log: this.log,
    });
    const disconnect = async () => {
      this.clients.remove(client, new Error('The client disconnected.'));
      this.commands.disconnected(client);
      if (this.clients.size === 0) await this.closeThreads();
    };
    return { receive: (line) => client.connection.receive(line), connection: client.connection, disconnect };
  }

  private async closeThreads(): Promise<void> {
    const open = [...this.threads.values()];
    this.threads.clear();
    await Promise.all(open.map((thread) => thread.close().catch(() => {})));
  }

  /** Closes every thread (their harness processes end with them) and the connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.commands.closeAll();
      await this.closeThreads();
      this.clients.closeAll(new Error('The bridge is shutting down.'));
    })();
    return this.closing;
  }

  // ---- dispatch ----
  private readonly commands = new CommandProcesses(() => this.reads.cwd);

  private readonly handlers: Record<string, Handler> = {
    'thread/start': (params) => this.startThread(params),
    'thread/resume': (params) => this.resumeThread(params),
    'thread/fork': (params) => forkThread(this.forkContext(), params),
    ...threadAdminHandlers(() => this.threadsContext()),
    'thread/read': (params) => readThread(this.reads, params),
    'thread/list': (params) => listAllThreads(this.reads, params),
    'thread/loaded/list': async (params) => listLoaded(this.reads, params),
    'thread/turns/list': (params) => listTurns(this.reads, params),
    'thread/items/list': (params) => listItems(this.reads, params),
    'turn/start': (params) => startTurn(this.turnContext(params), params),
    'turn/steer': (params) => steerTurn(this.turnContext(params), params),
    'turn/interrupt': (params) => interruptTurn(this.turnContext(params), params),
    'thread/settings/update': (params) => updateThreadSettings(this.turnContext(params), params),
    'mcpServerStatus/list': (params) => listMcpServerStatus(this.mcpContext(), params),
    'model/list': async (params) =>
      listModels(
        await this.facts.catalog(),
        {
          provider: this.harness.id,
          images: await this.facts.implements('images'),
          effort: this.options.defaults?.effort,
        },
        params,
      ),
    'thread/shellCommand': async (params) =>
      runShellCommand(this.threadFor(requiredString(params, 'threadId')), params),
    ...clientSurfaceHandlers(() => ({ ...this.defaults(), harness: this.harness.id })),
    ...refusalHandlers(
      () => this.harness.id,
      (threadId) => this.threads.has(threadId),
    ),
    ...this.commands.handlers(),
    ...new FileSearches(() => this.reads.cwd).handlers(),
  };

  private async dispatch(method: string, params: unknown, client: Client): Promise<unknown> {
    try {
      if (method === 'initialize') return this.initialize(paramsObject(params), client);
      // Codex 0.169.0 answers requests before initialize with -32600 "Not initialized".
      if (!client.initialized) throw new RpcError(RPC.invalidRequest, 'Not initialized');
      // Own names only: an object literal also answers "toString" and "__proto__".
      const handler = Object.hasOwn(this.handlers, method) ? this.handlers[method] : undefined;
      if (!handler || !(await this.servedHere(method))) throw await this.unserved(method);
      if (this.closing) throw new ReinsError('process_exited', 'The bridge is shutting down.');
      return await handler(paramsObject(params), client);
    } catch (error) {
      throw rpcErrorOf(error, method);
    }
  }

  /**
   * A method the bridge does not serve gets Codex's own answer to a method it does not know (-32600,
   * "unknown variant"), which clients read as "not supported here". thread/fork and
   * mcpServerStatus/list are among them in front of a harness whose adapter does not implement fork
   * or MCP status (the capability matrix says).
   */
  private async unserved(method: string): Promise<RpcError> {
    const served: string[] = [];
    for (const name of ['initialize', ...Object.keys(this.handlers)])
      if (!REFUSED_METHODS.has(name) && (await this.servedHere(name))) served.push(name);
    return unknownMethodError(method, served, this.harness.id);
  }

  /** Whether a method whose answer rests on a capability is served in front of this harness. */
  private async servedHere(method: string): Promise<boolean> {
    const needs = Object.hasOwn(CAPABILITY_OF, method) ? CAPABILITY_OF[method] : undefined;
    return needs === undefined || (await this.facts.implements(needs));
  }

  private initialize(params: Record<string, unknown>, client: Client): InitializeResponse {
    void this.facts.capabilities();
    void this.facts.catalog();
    const { harnessVersion, version } = this.options;
    return initializeClient(client, params, { harness: this.harness.id, harnessVersion, version });
  }

  // ---- threads ----

  private defaults(model?: string) {
    const defaults = this.options.defaults ?? {};
    const chosen = model ?? defaults.model;
    const posture = defaults.posture ?? 'bypass';
    return { cwd: this.reads.cwd, posture, provider: this.harness.id, ...(chosen ? { model: chosen } : {}) };
  }

  private threadFor(threadId: string): BridgeThread {
    const thread = this.threads.get(threadId);
    // Codex 0.169.0: "thread not found: <id>".
    if (!thread) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
    return thread;
  }

  private nativeIdOf(threadId: string): string {
    const live = this.threads.get(threadId);
    return this.nativeIds.get(threadId) ?? live?.state.nativeSessionId ?? live?.session.nativeSessionId ?? threadId;
  }

  private liveFacts(thread: BridgeThread): ThreadFacts {
    return liveThreadFacts(thread, this.harness.id);
  }

  private remember(thread: BridgeThread, turn?: TurnRecord): Promise<void> {
    if (thread.request.ephemeral) return Promise.resolve();
    const state = thread.state;
    const facts = { ...state, nativeSessionId: state.nativeSessionId ?? thread.session.nativeSessionId };
    return this.records.update(thread.id, (known) =>
      threadRecordOf(known, { id: thread.id, createdAtMs: thread.createdAt, ...facts }, turn),
    );
  }

  /** Opens a thread: new, resumed or forked (thread-open.ts). */
  private open(request: ThreadRequest, how?: OpenHow) {
    return openThread(
      {
        harness: this.harness,
        requestTimeoutMs: this.requestTimeoutMs,
        permissionTimeoutMs: this.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
        effort: this.options.defaults?.effort,
        itemsView: this.options.itemsView,
        threads: this.threads,
        nativeIds: this.nativeIds,
        out: this.clients,
        log: this.log,
        closing: () => this.closing !== undefined,
        remember: (thread, turn) => this.remember(thread, turn),
        followMcpStartup: (thread) => this.followMcpStartup(thread),
      },
      request,
      how,
    );
  }

  /**
   * The model a thread runs on, as Codex always names it: the one the harness reported, else the one
   * asked for, else the harness's default entry of its model list (Claude Code 2.1.197 says which
   * model it runs only at the first turn, and lists `default`); `""` only when nothing says.
   */
  private async modelOf(thread: BridgeThread): Promise<string> {
    if (thread.state.model) return thread.state.model;
    const catalog = await this.facts.catalog();
    return catalog?.find((model) => model.isDefault)?.id ?? '';
  }

  private async threadAnswer(thread: BridgeThread, turns: Turn[] = []): Promise<ThreadStartResponse> {
    return threadAnswerOf(thread, turns, await this.modelOf(thread), this.harness.id);
  }

  private async startThread(params: Record<string, unknown>): Promise<ThreadStartResponse> {
    const request = threadRequestOf(params, this.defaults());
    checkToolsNetwork(request, (await this.facts.capabilities())?.sandbox.implemented.how, this.harness.id);
    const { thread, release } = await this.open(request);
    try {
      const answer = await this.threadAnswer(thread);
      thread.emit([{ method: 'thread/started', params: { thread: answer.thread } }]);
      return answer;
    } finally {
      release();
    }
  }

  private async resumeThread(params: Record<string, unknown>): Promise<ThreadResumeResponse> {
    const threadId = requiredString(params, 'threadId');
    const excludeTurns = params.excludeTurns === true;
    const open = this.threads.get(threadId);
    // A thread this bridge runs is rejoined, as Codex does.
    if (open) return this.resumeAnswer(open, excludeTurns ? [] : ((await turnsOf(this.reads, threadId, 'full')) ?? []));
    const record = await this.records.get(threadId);
    const nativeId = this.storedNativeId(threadId, record?.nativeSessionId, 'thread/resume');
    // A resumed thread keeps the model it ran on unless the client names another.
    const request = threadRequestOf(
      { ...(record ? { cwd: record.cwd } : {}), ...params },
      this.defaults(record?.model),
    );
    const { thread, release } = await this.open(request, { resume: { nativeSessionId: nativeId }, threadId });
    try {
      if (record?.effort) thread.state.effort ??= record.effort;
      if (record?.name) thread.state.title ??= record.name;
      const turns = excludeTurns ? [] : ((await turnsOf(this.reads, threadId, 'full')) ?? []);
      return await this.resumeAnswer(thread, turns);
    } finally {
      release();
    }
  }

  /** The conversation behind a thread that is not open here (records map bridge-made ids). */
  private storedNativeId(threadId: string, recorded: string | undefined, operation: string): string {
    const nativeId = this.nativeIds.get(threadId) ?? recorded ?? threadId;
    if (threadId.startsWith('reins-') && nativeId === threadId) {
      throw new ReinsError(
        'resume_failed',
        `Thread ${threadId} was named by a bridge before its harness had an id, and no record says which conversation it is; it cannot be resumed or forked.`,
        { operation },
      );
    }
    return nativeId;
  }

  private async resumeAnswer(thread: BridgeThread, turns: Turn[]): Promise<ThreadResumeResponse> {
    return {
      ...(await this.threadAnswer(thread, turns)),
      collaborationMode: null,
      turnsBackwardsCursor: null,
      itemsBackwardsCursor: null,
    };
  }

  /** mcpServer/startupStatus/updated for a new thread, where the harness reports MCP status. */
  private async followMcpStartup(thread: BridgeThread): Promise<void> {
    if (!(await this.servedHere('mcpServerStatus/list'))) return;
    await watchMcpStartup(thread, {
      requestTimeoutMs: this.requestTimeoutMs,
      log: this.log,
      ...(this.options.mcpStartup ? { timing: this.options.mcpStartup } : {}),
    });
  }

  private mcpContext(): McpStatusContext {
    return {
      threads: this.threads,
      requestTimeoutMs: this.requestTimeoutMs,
      log: this.log,
      unserved: () => this.unserved('mcpServerStatus/list'),
    };
  }

  private threadsContext(): ThreadsContext {
    return {
      threads: this.threads,
      records: this.records,
      requestTimeoutMs: this.requestTimeoutMs,
      remember: (thread) => this.remember(thread),
      threadOf: async (threadId) => (await readThread(this.reads, { threadId })).thread,
      notify: (method, params) => this.clients.notify(method, params),
      harness: this.harness.id,
      conversationReverts: () => this.facts.implements('revert'),
    };
  }

  private forkContext(): ForkContext {
    return {
      threads: this.threads,
      records: this.records,
      reads: this.reads,
      defaults: (model) => this.defaults(model),
      nativeIdOf: (threadId, recorded) =>
        this.threads.has(threadId) ? this.nativeIdOf(threadId) : this.storedNativeId(threadId, recorded, 'thread/fork'),
      open: (request, how) => this.open(request, how),
      answer: (thread, turns) => this.threadAnswer(thread, turns),
    };
  }

  private turnContext(params: Record<string, unknown>): TurnRequestContext {
    return { thread: this.threadFor(requiredString(params, 'threadId')), requestTimeoutMs: this.requestTimeoutMs };
  }
}
