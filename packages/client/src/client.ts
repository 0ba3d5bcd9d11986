// `connect()` and the ReinsClient: one authenticated WebSocket connection to a Reins daemon, which
// starts sessions and attaches to existing ones as RemoteSessions (core's Session interface), and
// hands the daemon's status/snapshot and sessions/changed notifications to listeners.
// Browser-safe: the WebSocket comes from the caller or globalThis, never from a Node package.
import {
  type CapabilityMatrix,
  type HarnessId,
  type Item,
  type McpServerStatus,
  type ModelInfo,
  ReinsError,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import {
  type AuthCeremonyInfo,
  type AuthStatus,
  type ClientInfo,
  HARNESS_AUTH_CHANGED,
  type HarnessAuthChangedParams,
  HarnessAuthChangedParamsSchema,
  type HarnessListing,
  type InitializeResult,
  PROTOCOL_VERSION,
  readSessionEventParams,
  readSessionEventsParams,
  SESSION_EVENT,
  SESSION_EVENT_PART,
  SESSION_EVENTS,
  SESSIONS_CHANGED,
  type SessionLabels,
  type SessionListing,
  type SessionsChangedParams,
  SessionsChangedParamsSchema,
  STATUS_SNAPSHOT,
  type StatusSnapshotParams,
  StatusSnapshotParamsSchema,
  type WireHarnessOptions,
} from '@reins/protocol';
import { EventPartJoiner } from './event-parts.js';
import { RemoteSession } from './remote-session.js';
import { RpcChannel, type WebSocketConstructor, type WebSocketLike } from './rpc-channel.js';

export interface ConnectOptions {
  /** The daemon's url (daemon.json `url`), e.g. ws://127.0.0.1:41234 */
  url: string;
  /** The daemon's token (daemon.json `token`). */
  token: string;
  /** A WebSocket class; default globalThis.WebSocket (Node 20 has none: pass `ws`'s). */
  WebSocket?: WebSocketConstructor;
  /** Told to the daemon for its logs. */
  client?: ClientInfo;
  /** Deadline to open the socket and initialize (ms, default 10 000). */
  connectTimeoutMs?: number;
  /** Deadline of each request (ms, default 60 000). */
  requestTimeoutMs?: number;
  /** Deadline of session/create, which starts the harness (ms, default 120 000). */
  createTimeoutMs?: number;
  /**
   * false: events come without their `native` frame (about half of an event's bytes; a UI that never
   * shows native frames does not pay for them). Default true. A daemon that predates the choice sends
   * them anyway.
   */
  nativeFrames?: boolean;
}

export interface AttachOptions {
  /** The last seq this client already has: the daemon replays every later event, then goes live. */
  afterSeq?: number;
}

const DEFAULT_CLIENT: ClientInfo = { name: '@reins/client', version: '0.1.0' };

export async function connect(options: ConnectOptions): Promise<ReinsClient> {
  const WebSocketClass =
    options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? undefined;
  if (!WebSocketClass) {
    throw new ReinsError(
      'invalid_input',
      'No WebSocket implementation here (Node 20 has none): pass one, e.g. connect({ url, token, WebSocket }) with the WebSocket class of the ws package.',
    );
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const socket = await openSocket(WebSocketClass, options.url, connectTimeoutMs);
  const client = new ReinsClient(socket, options);
  try {
    await client.initialize(options.token, options.client ?? DEFAULT_CLIENT, connectTimeoutMs);
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

/** readyState values (the same in browsers and ws). */
const SOCKET_OPEN = 1;
const SOCKET_CLOSING = 2;

function openSocket(WebSocketClass: WebSocketConstructor, url: string, timeoutMs: number): Promise<WebSocketLike> {
  return new Promise((resolve, reject) => {
    let socket: WebSocketLike;
    try {
      socket = new WebSocketClass(url);
    } catch (error) {
      reject(new ReinsError('invalid_input', `Cannot connect to "${url}": ${String(error)}`, { cause: error }));
      return;
    }
    let settled = false;
    const settle = (error?: ReinsError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        socket.close();
        reject(error);
      } else resolve(socket);
    };
    const timer = setTimeout(
      () =>
        settle(
          new ReinsError('timeout', `The Reins daemon at ${url} did not accept a connection within ${timeoutMs} ms.`),
        ),
      timeoutMs,
    );
    const refused = (event: unknown) => {
      // ws says why (e.g. "Unexpected server response: 403" for a refused Origin); browsers do not.
      const message = (event as { message?: unknown } | undefined)?.message;
      const detail = typeof message === 'string' && message ? ` (${message})` : '';
      settle(
        new ReinsError(
          'process_exited',
          `Could not connect to the Reins daemon at ${url}${detail}: is it running (\`reins daemon\`), and is this its url (daemon.json's \`url\` on the daemon's machine; from elsewhere, the address of its --listen or --public-origin)?`,
        ),
      );
    };
    socket.addEventListener('open', () => settle());
    socket.addEventListener('error', refused);
    socket.addEventListener('close', refused);
    // A class may hand over a socket its caller opened earlier (the console opens one before this
    // code is loaded): its open or its failure may be past, and no event will tell it again.
    if (socket.readyState === SOCKET_OPEN) settle();
    else if (socket.readyState >= SOCKET_CLOSING) refused(undefined);
  });
}

type Listener<T> = (params: T) => void;

/** A listener that throws must not take the connection (or the other listeners) down with it. */
function notifyAll<T>(listeners: Set<Listener<T>>, params: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(params);
    } catch {
      // the caller's bug; the connection goes on
    }
  }
}

export class ReinsClient {
  private readonly channel: RpcChannel;
  private readonly sessions = new Map<string, RemoteSession>();
  /** Big events arrive in parts (eventParts): joined here before they reach their session. */
  private readonly parts = new EventPartJoiner();
  private readonly snapshotListeners = new Set<Listener<StatusSnapshotParams>>();
  private readonly changeListeners = new Set<Listener<SessionsChangedParams>>();
  private readonly authListeners = new Set<Listener<HarnessAuthChangedParams>>();
  /** The newest snapshot the daemon sent (it sends one right after initialize, then every 15 s). */
  private snapshot: StatusSnapshotParams | undefined;
  private readonly requestTimeoutMs: number;
  private readonly createTimeoutMs: number;
  /** Asked for at initialize: events without their native frames (ConnectOptions.nativeFrames). */
  private readonly omitNative: boolean;
  private initialized: InitializeResult | undefined;
  /** Resolves when the connection ends, with why. */
  readonly closed: Promise<ReinsError>;

  constructor(socket: WebSocketLike, options: ConnectOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.createTimeoutMs = options.createTimeoutMs ?? 120_000;
    this.omitNative = options.nativeFrames === false;
    this.channel = new RpcChannel(socket, (method, params) => this.notified(method, params));
    this.closed = new Promise((resolve) => this.channel.onClose(resolve));
    this.channel.onClose((reason) => {
      for (const session of [...this.sessions.values()]) session.connectionLost(reason);
    });
  }

  /** What the daemon said at initialize: protocol and Reins versions, harnesses it offers. */
  get info(): InitializeResult {
    if (!this.initialized) throw new ReinsError('invalid_input', 'The client is not initialized yet.');
    return this.initialized;
  }

  get isClosed(): boolean {
    return this.channel.isClosed;
  }

  /** @internal called by connect() */
  async initialize(token: string, client: ClientInfo, timeoutMs: number): Promise<void> {
    const result = await this.channel.request(
      'initialize',
      // Batches: a replay of 20,000 events is some 40 frames, not 20,000 (a browser pays per frame).
      // Parts: an event too big for one frame (a 10 MB image) comes whole, not shrunk.
      {
        token,
        client,
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { eventBatches: true, eventParts: true, ...(this.omitNative ? { omitNative: true } : {}) },
      },
      { timeoutMs },
    );
    if (result.protocolVersion !== PROTOCOL_VERSION) {
      throw new ReinsError(
        'protocol_error',
        `The daemon speaks protocol version ${result.protocolVersion}; this client speaks ${PROTOCOL_VERSION}. Use matching versions of Reins.`,
        { data: { daemon: result.protocolVersion, client: PROTOCOL_VERSION } },
      );
    }
    this.initialized = result;
  }

  /** The newest status/snapshot the daemon sent (undefined until the first arrives). */
  get lastSnapshot(): StatusSnapshotParams | undefined {
    return this.snapshot;
  }

  /** Every status/snapshot (right after initialize, then every 15 s). Returns a function that stops it. */
  onStatusSnapshot(listener: Listener<StatusSnapshotParams>): () => void {
    this.snapshotListeners.add(listener);
    return () => this.snapshotListeners.delete(listener);
  }

  /** Every sessions/changed (created, updated, closed, deleted), from any client. Returns a function that stops it. */
  onSessionsChanged(listener: Listener<SessionsChangedParams>): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Every harness the daemon offers: where its binary is, and its health. */
  harnesses(): Promise<HarnessListing[]> {
    return this.channel.request('harness/list', undefined, { timeoutMs: this.requestTimeoutMs });
  }

  /** Every harness/authChanged (a sign-in landed, ended or was seen by a re-probe). Returns a function that stops it. */
  onAuthChanged(listener: Listener<HarnessAuthChangedParams>): () => void {
    this.authListeners.add(listener);
    return () => this.authListeners.delete(listener);
  }

  /** The harness's model catalog: each model's efforts and which is the default. */
  models(harness: HarnessId): Promise<ModelInfo[]> {
    return this.channel.request('harness/models', { harness }, { timeoutMs: this.requestTimeoutMs });
  }

  /** The harness's capability matrix: implemented, advertised and observed, with evidence. */
  capabilities(harness: HarnessId): Promise<CapabilityMatrix> {
    return this.channel.request('harness/capabilities', { harness }, { timeoutMs: this.requestTimeoutMs });
  }

  /** Conversations the harness itself keeps (not only the daemon's), newest first, one page. */
  harnessSessions(
    harness: HarnessId,
    options: { cwd?: string; limit?: number; offset?: number } = {},
  ): Promise<SessionSummary[]> {
    return this.channel.request('harness/sessions', { harness, ...options }, { timeoutMs: this.requestTimeoutMs });
  }

  /** One conversation the harness keeps, as items (adopt it with createSession and spec.resume). */
  history(harness: HarnessId, nativeSessionId: string, options: { cwd?: string } = {}): Promise<Item[]> {
    return this.channel.request(
      'harness/history',
      { harness, nativeSessionId, ...options },
      { timeoutMs: this.requestTimeoutMs },
    );
  }

  authStatus(harness: HarnessId): Promise<AuthStatus> {
    return this.channel.request('harness/auth/status', { harness }, { timeoutMs: this.requestTimeoutMs });
  }

  /** Starts the harness's own sign-in; the answer says where the user goes (url, code). */
  login(harness: HarnessId, method?: string): Promise<AuthCeremonyInfo> {
    return this.channel.request(
      'harness/auth/login',
      { harness, ...(method !== undefined ? { method } : {}) },
      { timeoutMs: this.requestTimeoutMs },
    );
  }

  async cancelLogin(ceremonyId: string): Promise<void> {
    await this.channel.request('harness/auth/cancel', { ceremonyId }, { timeoutMs: this.requestTimeoutMs });
  }

  /** A new daemon session on a fork of this one's conversation; attach to it to follow it. */
  fork(sessionId: string): Promise<{ sessionId: string; harness: HarnessId; nativeSessionId?: string }> {
    return this.channel.request('session/fork', { sessionId }, { timeoutMs: this.createTimeoutMs });
  }

  /** The MCP servers of a session as its harness reports them. */
  mcpStatus(sessionId: string): Promise<McpServerStatus[]> {
    return this.channel.request('session/mcpStatus', { sessionId }, { timeoutMs: this.requestTimeoutMs });
  }

  /** Every session the daemon holds (they belong to the daemon, not to a connection). */
  listSessions(): Promise<SessionListing[]> {
    return this.channel.request('session/list', undefined, { timeoutMs: this.requestTimeoutMs });
  }

  /** Forgets a session and its event log for good (closing it first when it is open). */
  async deleteSession(sessionId: string): Promise<void> {
    await this.channel.request('session/delete', { sessionId }, { timeoutMs: this.requestTimeoutMs });
  }

  /**
   * Starts a session in the daemon and subscribes to all of its events from the first. In cluster
   * mode `placement.labels` picks the worker (every label must be among its `--labels`).
   */
  async createSession(
    harness: HarnessId,
    spec: SessionSpec,
    harnessOptions?: WireHarnessOptions,
    placement?: { labels?: SessionLabels },
  ): Promise<RemoteSession> {
    const created = await this.channel.request(
      'session/create',
      {
        harness,
        spec,
        ...(harnessOptions ? { harnessOptions } : {}),
        ...(placement?.labels ? { labels: placement.labels } : {}),
      },
      { timeoutMs: this.createTimeoutMs },
    );
    return this.attach(created.sessionId, { afterSeq: 0 });
  }

  /** Follows an existing daemon session: every event after `afterSeq`, then live ones. */
  async attach(sessionId: string, options: AttachOptions = {}): Promise<RemoteSession> {
    if (this.sessions.has(sessionId)) {
      throw new ReinsError(
        'invalid_input',
        `Session ${sessionId} is already attached on this connection: use that RemoteSession, or detach() it first.`,
      );
    }
    const afterSeq = options.afterSeq ?? 0;
    // Registered before subscribing: the replay can arrive in the same read as the answer.
    const session = new RemoteSession(sessionId, afterSeq, {
      channel: this.channel,
      requestTimeoutMs: this.requestTimeoutMs,
      onDetached: (detached) => {
        if (this.sessions.get(detached.id) === detached) {
          this.sessions.delete(detached.id);
          this.parts.forget(detached.id);
        }
      },
    });
    this.sessions.set(sessionId, session);
    try {
      await this.channel.request(
        'session/subscribe',
        { sessionId, afterSeq },
        {
          timeoutMs: this.requestTimeoutMs,
          onResult: (result) => session.attached(result.harness, result.nativeSessionId, result.lastSeq),
        },
      );
    } catch (error) {
      session.connectionLost(ReinsError.from(error, 'protocol_error'));
      throw error;
    }
    return session;
  }

  /** Closes the connection. Daemon sessions live on; attach to them again from a new connection. */
  close(): void {
    this.channel.close();
  }

  private notified(method: string, params: unknown): void {
    if (method === SESSION_EVENT) {
      const checked = readSessionEventParams(params);
      if (checked) this.sessions.get(checked.sessionId)?.receive(checked.event);
    } else if (method === SESSION_EVENTS) {
      // Unpacked into the same per-event path: order, dedupe by seq and gaps as for single events.
      const checked = readSessionEventsParams(params);
      if (checked) this.sessions.get(checked.sessionId)?.receiveAll(checked.events);
    } else if (method === SESSION_EVENT_PART) {
      const joined = this.parts.add(params);
      if (joined) this.sessions.get(joined.sessionId)?.receive(joined.event);
    } else if (method === STATUS_SNAPSHOT) {
      const parsed = StatusSnapshotParamsSchema.safeParse(params);
      if (!parsed.success) return;
      this.snapshot = parsed.data;
      notifyAll(this.snapshotListeners, parsed.data);
    } else if (method === SESSIONS_CHANGED) {
      const parsed = SessionsChangedParamsSchema.safeParse(params);
      if (!parsed.success) return;
      notifyAll(this.changeListeners, parsed.data);
    } else if (method === HARNESS_AUTH_CHANGED) {
      const parsed = HarnessAuthChangedParamsSchema.safeParse(params);
      if (!parsed.success) return;
      notifyAll(this.authListeners, parsed.data);
    }
    // anything else: a newer daemon's notification, not for us
  }
}
