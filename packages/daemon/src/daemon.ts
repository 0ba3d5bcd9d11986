// The Reins daemon: a WebSocket server (on 127.0.0.1 unless told otherwise: listen.ts) that owns
// sessions of any harness and lets any number of clients drive and watch them (protocol in
// @reins/protocol; options in daemon-options.ts). Sessions belong to the daemon and
// live in its store ($REINS_HOME/reins.db), so they survive a client's disconnect, a daemon
// restart and a crash. Start: check the home, take the store (its lock says
// no other daemon runs here), reap the process groups a crashed predecessor left, bring sessions
// back dormant, listen, write daemon.json. close(): every harness process stops (sessions go
// dormant, not closed), every socket closes, daemon.json is removed, the store is released.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { type Harness, type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import { availableHarnessIds, createHarness, reinsHome } from '@reins/harnesses';
import {
  CLOSE_CODES,
  type HarnessListing,
  PROTOCOL_VERSION,
  SESSIONS_CHANGED,
  type SessionChange,
  STATUS_SNAPSHOT,
  type StatusSnapshotParams,
} from '@reins/protocol';
import { WebSocketServer } from 'ws';
import { DaemonConnection, type DaemonContext } from './connection.js';
import { ConsoleRoute, defaultConsoleDir } from './console-route.js';
import {
  anotherDaemonError,
  readDaemonFile,
  removeDaemonFile,
  removeDaemonFileSync,
  writeDaemonFile,
} from './daemon-file.js';
import type { Daemon, DaemonOptions } from './daemon-options.js';
import { recoverSessions, startWarmProcesses } from './daemon-startup.js';
import { DEFAULT_MAX_PENDING_CONNECTIONS, headerTimeouts, oldestToEnd } from './doors.js';
import { DEFAULT_EVENT_BUFFER_SIZE } from './event-buffer.js';
import { HarnessService } from './harness-service.js';
import { prepareHome } from './home.js';
import {
  formatAddress,
  type ListenPlan,
  LOOPBACK_HOST,
  listenToken,
  localUrl,
  planListen,
  reachableAddresses,
} from './listen.js';
import { createLogger, type Logger } from './logger.js';
import { ProcessTracker } from './processes/tracker.js';
import type { SessionDirectory, SessionSource } from './session-directory.js';
import { SessionHost } from './session-host.js';
import { SqliteStore } from './store/sqlite-store.js';
import type { DaemonStore } from './store/store.js';
import {
  checkUpgrade,
  type DaemonNames,
  daemonNames,
  normalizeOrigins,
  normalizePublicOrigins,
} from './upgrade-guard.js';

export type { Daemon, DaemonOptions };
export { LOOPBACK_HOST };
/** The store's file under $REINS_HOME. */
export const STORE_FILE = 'reins.db';

const REINS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** How long connected clients get to close after the daemon said goodbye. */
const SOCKET_CLOSE_GRACE_MS = 2_000;

export async function startDaemon(options: DaemonOptions = {}): Promise<Daemon> {
  const plan = planListen(options);
  const harnesses = options.harnesses ?? availableHarnessIds();
  for (const id of harnesses) {
    if (!isHarnessId(id))
      throw new ReinsError('invalid_input', `Unknown harness "${id}" in the daemon's harness list.`);
  }
  const origins = normalizeOrigins(options.allowOrigins ?? []);
  const publicOrigins = normalizePublicOrigins(options.publicOrigins ?? []);
  const token = await listenToken(options);
  const home = options.home ?? reinsHome();
  const log = options.logger ?? createLogger();
  await prepareHome(home);
  let store: DaemonStore | undefined;
  try {
    if (!options.sessionSource)
      store =
        options.store ?? (await SqliteStore.open(join(home, STORE_FILE), { warn: (message) => log.warn(message) }));
  } catch (error) {
    if (ReinsError.isInstance(error) && (error.data as { reason?: string } | undefined)?.reason === 'locked') {
      throw anotherDaemonError(home, await readDaemonFile(home));
    }
    throw error;
  }
  const daemon = new ReinsDaemon(options, {
    home,
    log,
    store,
    origins,
    publicOrigins,
    plan,
    token,
    sharedToken: options.tokenFile !== undefined,
    harnesses,
    homeLocked: !options.store && !options.sessionSource,
  });
  try {
    await daemon.recover();
    await daemon.warmUp();
    await daemon.listen();
  } catch (error) {
    await daemon.close().catch(() => {});
    throw error;
  }
  return daemon;
}

interface Settings {
  home: string;
  log: Logger;
  /** Undefined when a session source serves the sessions. */
  store: DaemonStore | undefined;
  origins: string[];
  /** `publicOrigins`, normalized. */
  publicOrigins: string[];
  plan: ListenPlan;
  token: string;
  /** The token came from a token file (shared with other daemons), not made for this start. */
  sharedToken: boolean;
  harnesses: HarnessId[];
  /** We hold the home's store lock (the default store): any daemon.json found is stale. */
  homeLocked: boolean;
}

class ReinsDaemon implements Daemon, DaemonContext {
  readonly token: string;
  readonly reinsVersion = REINS_VERSION;
  readonly log: Logger;
  readonly harnesses: HarnessId[];
  readonly initializeTimeoutMs: number;
  readonly maxBufferedBytes: number;
  readonly maxPayloadBytes: number;
  readonly maxRequestsInFlight: number;
  readonly sessions: SessionDirectory;
  readonly backend: HarnessService | undefined;
  private readonly home: string;
  /** This daemon's own sessions, store and process records; undefined when `source` serves them. */
  private readonly local: { host: SessionHost; store: DaemonStore; tracker: ProcessTracker } | undefined;
  private readonly source: SessionSource | undefined;
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<DaemonConnection>();
  /** Connections ended to make room for newer ones (doors.ts), until their socket closed. */
  private readonly ended = new Set<DaemonConnection>();
  private snapshotTimer: ReturnType<typeof setInterval> | undefined;
  private boundPort = 0;
  /** Every name of this daemon (Host, own origins, sockets), known once it listens. */
  private names: DaemonNames = daemonNames(0);
  private listening = false;
  private closing: Promise<void> | undefined;
  /** Harnesses keeping warm processes (options.warm), stopped first on close. */
  private readonly warmed: Harness[] = [];
  private readonly exitHook = () => removeDaemonFileSync(this.home, this.token);
  infoPath = '';

  constructor(
    private readonly options: DaemonOptions,
    private readonly settings: Settings,
  ) {
    this.log = settings.log;
    this.token = settings.token;
    this.home = settings.home;
    this.harnesses = settings.harnesses;
    this.initializeTimeoutMs = options.initializeTimeoutMs ?? 10_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.maxPayloadBytes = options.maxPayloadBytes ?? 32 * 1024 * 1024;
    this.maxRequestsInFlight = options.maxRequestsInFlight ?? 1_024;
    const changed = (sessionId: string, change: SessionChange) => this.broadcastChange(sessionId, change);
    this.source = options.sessionSource?.(changed);
    this.local = this.source ? undefined : this.localSessions(settings.store, changed);
    this.sessions = this.source ?? (this.local as { host: SessionHost }).host;
    this.backend = this.local ? this.harnessService(this.local.host) : undefined;
    // Before initialize a frame may be at most this; an authenticated connection is raised to maxPayloadBytes.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPreAuthFrameBytes ?? 64 * 1024 });
    // Plain HTTP is the web console (console-route.ts); the protocol is the WebSocket upgrade.
    const consoleRoute = new ConsoleRoute(
      options.consoleDir === false ? undefined : (options.consoleDir ?? defaultConsoleDir()),
      () => this.names,
    );
    this.server = createServer(headerTimeouts(options.headerTimeoutMs), (request, response) =>
      consoleRoute.handle(request, response),
    );
    this.server.on('upgrade', (request, socket, head) => this.upgrade(request, socket, head));
  }

  private localSessions(store: DaemonStore | undefined, changed: (sessionId: string, change: SessionChange) => void) {
    if (!store) throw new ReinsError('invalid_input', 'A daemon without a session source needs a store.');
    const options = this.options;
    const tracker = new ProcessTracker(store, this.log);
    const host = new SessionHost({
      store,
      log: this.log,
      tracker,
      createHarness: options.createHarness ?? ((id, harnessOptions) => createHarness(id, harnessOptions)),
      harnessOptions: options.harnessOptions ?? {},
      tailSize: options.eventBufferSize ?? DEFAULT_EVENT_BUFFER_SIZE,
      closedSessionsKept: options.closedSessionsKept ?? 100,
      idleTtlMs: options.idleTtlMs ?? 30 * 60_000,
      maxLiveSessions: options.maxLiveSessions ?? 32,
      changed,
    });
    host.offers = (id) => this.harnesses.includes(id);
    return { host, store, tracker };
  }

  private harnessService(host: SessionHost): HarnessService {
    const options = this.options;
    return new HarnessService({
      host,
      createHarness: options.createHarness ?? ((id, harnessOptions) => createHarness(id, harnessOptions)),
      harnessOptions: options.harnessOptions ?? {},
      log: this.log,
      broadcast: (method, params) => {
        for (const connection of this.connections) connection.notify(method, params);
      },
      probeTimeoutMs: options.probeTimeoutMs ?? 15_000,
      ...(options.authPollMs !== undefined ? { authPollMs: options.authPollMs } : {}),
      ...(options.authTimeoutMs !== undefined ? { authTimeoutMs: options.authTimeoutMs } : {}),
    });
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return localUrl(this.settings.plan, this.boundPort);
  }

  get address(): string {
    return formatAddress(this.settings.plan.host, this.boundPort);
  }

  get storeLocation(): string {
    return this.source?.location ?? this.local?.store.location ?? '';
  }

  /** Starts the warm processes options.warm asks for (daemon-startup.ts). */
  async warmUp(): Promise<void> {
    if (!this.local) return;
    await startWarmProcesses({
      options: this.options,
      harnesses: this.harnesses,
      make: this.options.createHarness ?? ((id, harnessOptions) => createHarness(id, harnessOptions)),
      tracker: this.local.tracker,
      log: this.log,
      warmed: this.warmed,
    });
  }

  /** Reaps what a crashed daemon left running, then brings every stored session back (daemon-startup.ts). */
  async recover(): Promise<void> {
    if (this.local) await recoverSessions(this.local.store, this.local.host, this.log);
  }

  async listen(): Promise<void> {
    const { host, port } = this.settings.plan;
    const where = formatAddress(host, port);
    await new Promise<void>((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => {
        reject(
          error.code === 'EADDRINUSE'
            ? new ReinsError('invalid_input', `${where} is in use: pick another port (--port or --listen).`)
            : error.code === 'EADDRNOTAVAIL'
              ? new ReinsError('invalid_input', `Cannot listen on ${where}: no interface of this machine has ${host}.`)
              : new ReinsError('invalid_input', `Cannot listen on ${where}: ${error.message}`),
        );
      };
      this.server.once('error', failed);
      this.server.listen(port, host, () => {
        this.server.off('error', failed);
        resolve();
      });
    });
    this.listening = true;
    const address = this.server.address();
    this.boundPort = typeof address === 'object' && address ? address.port : port;
    this.names = daemonNames(this.boundPort, {
      addresses: reachableAddresses(this.settings.plan),
      publicOrigins: this.settings.publicOrigins,
    });
    const written = await writeDaemonFile(
      this.home,
      { url: this.url, pid: process.pid, token: this.token, protocolVersion: PROTOCOL_VERSION, startedAt: Date.now() },
      { homeLocked: this.settings.homeLocked },
    );
    this.infoPath = written.path;
    if (written.replacedStale) {
      this.log.info('replaced a stale daemon.json', { stalePid: written.replacedStale.pid });
    }
    process.on('exit', this.exitHook);
    this.local?.host.startSweeping();
    this.snapshotTimer = setInterval(() => this.broadcastSnapshot(), this.options.snapshotIntervalMs ?? 15_000);
    this.snapshotTimer.unref();
    this.log.info('daemon listening', {
      url: this.url,
      address: this.address,
      sharedToken: this.settings.sharedToken,
      publicOrigins: this.settings.publicOrigins.join(' ') || undefined,
      infoPath: this.infoPath,
    });
  }

  sessionIds(): string[] {
    return this.sessions.list().map((hosted) => hosted.id);
  }

  // ---- DaemonContext ------------------------------------------------------------------------------

  listHarnesses(): Promise<HarnessListing[]> {
    if (!this.local) return this.source?.listHarnesses() ?? Promise.resolve([]);
    const backend = this.backend as HarnessService; // a daemon with its own sessions has one
    return this.local.tracker.run(undefined, () => backend.list(this.harnesses));
  }

  snapshot(): StatusSnapshotParams {
    return {
      sessions: this.sessions.list().map((hosted) => ({
        sessionId: hosted.id,
        status: hosted.status,
        lastSeq: hosted.lastSeq,
        updatedAt: hosted.updatedAt,
      })),
    };
  }

  private broadcastSnapshot(): void {
    if (this.connections.size === 0) return;
    const snapshot = this.snapshot();
    for (const connection of this.connections) connection.notify(STATUS_SNAPSHOT, snapshot);
  }

  private broadcastChange(sessionId: string, change: SessionChange): void {
    for (const connection of this.connections) connection.notify(SESSIONS_CHANGED, { sessionId, change });
  }

  // ---- lifecycle ----------------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.log.info('daemon closing', { sessions: this.sessions.list().length, connections: this.connections.size });
    clearInterval(this.snapshotTimer);
    const serverClosed = this.listening
      ? new Promise<void>((resolve) => this.server.close(() => resolve()))
      : Promise.resolve();
    // Warm processes first (nobody waits for them), then sessions (clients still connected see them
    // go dormant), then the sockets.
    await Promise.all(this.warmed.splice(0).map((harness) => harness.warm?.(0).catch(() => {})));
    await this.backend?.close();
    await (this.local ? this.local.host.shutdown() : this.source?.close());
    for (const connection of this.connections)
      connection.close(CLOSE_CODES.goingAway, 'the Reins daemon is shutting down');
    await this.allConnectionsClosed();
    this.wss.close();
    await serverClosed;
    if (this.listening) await removeDaemonFile(this.home, this.token);
    process.off('exit', this.exitHook);
    await this.local?.tracker.close();
    await this.local?.store.close();
    this.log.info('daemon closed');
  }

  private async allConnectionsClosed(): Promise<void> {
    const all = Promise.all([...this.connections].map((connection) => connection.closed));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), SOCKET_CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const connection of this.connections) connection.terminate();
      await all;
    }
  }

  private refuse(socket: Duplex, status: 403 | 503, reason: string): void {
    this.log.warn('upgrade refused', { status, reason });
    const body = `${reason}\n`;
    const text = status === 403 ? 'Forbidden' : 'Service Unavailable';
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) {
      this.refuse(socket, 403, 'The Reins daemon is shutting down.');
      return;
    }
    const verdict = checkUpgrade(
      { origin: request.headers.origin, host: request.headers.host },
      { origins: this.settings.origins, names: this.names },
    );
    if (!verdict.allowed) {
      this.refuse(socket, verdict.status, verdict.reason);
      return;
    }
    const limit = this.options.maxPendingConnections ?? DEFAULT_MAX_PENDING_CONNECTIONS;
    const oldest = oldestToEnd(this.connections, limit, this.ended);
    if (oldest) {
      this.log.warn('connection closed: the longest of too many waiting to initialize', { limit });
      this.ended.add(oldest);
      oldest.terminate();
    }
    this.wss.handleUpgrade(request, socket, head, (webSocket) => {
      const connection = new DaemonConnection(webSocket, this);
      this.connections.add(connection);
      void connection.closed.then(() => {
        this.connections.delete(connection);
        this.ended.delete(connection);
      });
      this.log.info('connection opened', { connection: connection.label });
    });
  }
}
