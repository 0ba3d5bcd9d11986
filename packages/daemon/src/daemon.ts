// The Reins daemon: a WebSocket server on 127.0.0.1 that owns sessions of any harness and lets any
// number of clients drive and watch them (protocol in @reins/client's protocol.ts). Sessions belong
// to the daemon, not to a connection, so they survive a client's disconnect. close() ends every
// session (and so every harness process group), every socket, and removes daemon.json.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type HarnessListing, PROTOCOL_VERSION, type SessionCreateParams } from '@reins/client';
import { type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import { type AnyHarnessOptions, availableHarnessIds, createHarness, reinsHome } from '@reins/harnesses';
import { WebSocketServer } from 'ws';
import { DaemonConnection, type DaemonContext } from './connection.js';
import { removeDaemonFile, removeDaemonFileSync, writeDaemonFile } from './daemon-file.js';
import { DEFAULT_EVENT_BUFFER_SIZE } from './event-buffer.js';
import { probeHarness } from './harness-probe.js';
import { HostedSession } from './hosted-session.js';
import { createLogger, type Logger } from './logger.js';
import { checkUpgrade, normalizeOrigins } from './upgrade-guard.js';

export const LOOPBACK_HOST = '127.0.0.1';

export interface DaemonOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one (daemon.json says which). */
  port?: number;
  /** Only 127.0.0.1 is accepted: anything else is refused with invalid_input. */
  host?: string;
  /** Browser origins allowed to connect (default none); non-browser clients send no Origin. */
  allowOrigins?: string[];
  /** Folder of daemon.json; default $REINS_HOME, else ~/.reins. */
  home?: string;
  /** Harness ids offered; default every id with an adapter in this build. */
  harnesses?: HarnessId[];
  /** Harness options per id, under what session/create passes (tests point harnesses at fakes). */
  harnessOptions?: Partial<Record<HarnessId, AnyHarnessOptions>>;
  /** Events kept per session for replay (default 10 000). */
  eventBufferSize?: number;
  /** Closed sessions kept for session/list and replay before the oldest is forgotten (default 100). */
  closedSessionsKept?: number;
  /** Deadline of each discovery and health probe in harness/list (ms, default 15 000). */
  probeTimeoutMs?: number;
  /** A connection that has not initialized within this is closed (ms, default 10 000). */
  initializeTimeoutMs?: number;
  /** A subscriber with more unsent bytes than this is disconnected (default 16 MiB). */
  maxBufferedBytes?: number;
  /** Largest frame accepted (bytes, default 32 MiB: turns can carry inline images). */
  maxPayloadBytes?: number;
  logger?: Logger;
}

export interface Daemon {
  /** ws://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** The secret of this start; also in daemon.json. */
  readonly token: string;
  /** Where daemon.json was written. */
  readonly infoPath: string;
  /** Sessions held right now (open and recently closed). */
  sessionIds(): string[];
  /** Ends every session, closes every socket, removes daemon.json. Idempotent. */
  close(): Promise<void>;
}

const REINS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** How long connected clients get to close after the daemon said goodbye. */
const SOCKET_CLOSE_GRACE_MS = 2_000;

export async function startDaemon(options: DaemonOptions = {}): Promise<Daemon> {
  const host = options.host ?? LOOPBACK_HOST;
  if (host !== LOOPBACK_HOST) {
    throw new ReinsError(
      'invalid_input',
      `The Reins daemon listens on ${LOOPBACK_HOST} only (its token runs agents on this machine); "${host}" is refused.`,
      { data: { host } },
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ReinsError('invalid_input', `The port must be a whole number from 0 to 65535, got ${port}.`);
  }
  const harnesses = options.harnesses ?? availableHarnessIds();
  for (const id of harnesses) {
    if (!isHarnessId(id))
      throw new ReinsError('invalid_input', `Unknown harness "${id}" in the daemon's harness list.`);
  }
  const daemon = new ReinsDaemon(options, normalizeOrigins(options.allowOrigins ?? []), harnesses);
  await daemon.listen(port);
  return daemon;
}

class ReinsDaemon implements Daemon, DaemonContext {
  readonly token = randomBytes(32).toString('base64url');
  readonly reinsVersion = REINS_VERSION;
  readonly log: Logger;
  readonly initializeTimeoutMs: number;
  readonly maxBufferedBytes: number;
  private readonly home: string;
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly sessions = new Map<string, HostedSession>();
  private readonly connections = new Set<DaemonConnection>();
  /** session/create calls in flight, up to the point where their session is hosted or closed. */
  private readonly creating = new Set<Promise<unknown>>();
  private boundPort = 0;
  private closing: Promise<void> | undefined;
  private readonly exitHook = () => removeDaemonFileSync(this.home, this.token);
  infoPath = '';

  constructor(
    private readonly options: DaemonOptions,
    private readonly origins: string[],
    readonly harnesses: HarnessId[],
  ) {
    this.log = options.logger ?? createLogger();
    this.initializeTimeoutMs = options.initializeTimeoutMs ?? 10_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.home = options.home ?? reinsHome();
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 32 * 1024 * 1024 });
    this.server = createServer((_request, response) => {
      response.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' });
      response.end(`This is the Reins daemon: connect with a WebSocket (JSON-RPC, protocol ${PROTOCOL_VERSION}).\n`);
    });
    this.server.on('upgrade', (request, socket, head) => this.upgrade(request, socket, head));
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `ws://${LOOPBACK_HOST}:${this.boundPort}`;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => {
        reject(
          error.code === 'EADDRINUSE'
            ? new ReinsError('invalid_input', `Port ${port} on ${LOOPBACK_HOST} is in use: pick another with --port.`)
            : new ReinsError('invalid_input', `Cannot listen on ${LOOPBACK_HOST}:${port}: ${error.message}`),
        );
      };
      this.server.once('error', failed);
      this.server.listen(port, LOOPBACK_HOST, () => {
        this.server.off('error', failed);
        resolve();
      });
    });
    const address = this.server.address();
    this.boundPort = typeof address === 'object' && address ? address.port : port;
    try {
      this.infoPath = await writeDaemonFile(this.home, {
        url: this.url,
        pid: process.pid,
        token: this.token,
        protocolVersion: PROTOCOL_VERSION,
        startedAt: Date.now(),
      });
    } catch (error) {
      await new Promise((resolve) => this.server.close(resolve));
      throw error;
    }
    process.on('exit', this.exitHook);
    this.log.info('daemon listening', { url: this.url, pid: process.pid, infoPath: this.infoPath });
  }

  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  // ---- DaemonContext ------------------------------------------------------------------------------

  listHarnesses(): Promise<HarnessListing[]> {
    const timeoutMs = this.options.probeTimeoutMs ?? 15_000;
    return Promise.all(
      this.harnesses.map((id) => probeHarness(id, this.options.harnessOptions?.[id] ?? {}, timeoutMs)),
    );
  }

  createSession(params: SessionCreateParams): Promise<HostedSession> {
    const work = this.create(params);
    this.creating.add(work);
    const forget = () => this.creating.delete(work);
    work.then(forget, forget);
    return work;
  }

  listSessions(): HostedSession[] {
    return [...this.sessions.values()];
  }

  session(sessionId: string): HostedSession {
    const hosted = this.sessions.get(sessionId);
    if (!hosted) {
      throw new ReinsError(
        'invalid_input',
        `Unknown session "${sessionId}": session/list shows the sessions this daemon holds.`,
        {
          data: { sessionId },
        },
      );
    }
    return hosted;
  }

  // ---- lifecycle ----------------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.log.info('daemon closing', { sessions: this.sessions.size, connections: this.connections.size });
    const serverClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Sessions first (clients still connected see their session.closed), then the sockets.
    await Promise.allSettled([...this.creating]);
    await Promise.allSettled([...this.sessions.values()].map((hosted) => hosted.close()));
    for (const connection of this.connections) connection.close(1001, 'the Reins daemon is shutting down');
    await this.allConnectionsClosed();
    this.wss.close();
    await serverClosed;
    await removeDaemonFile(this.home, this.token);
    process.off('exit', this.exitHook);
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

  private async create(params: SessionCreateParams): Promise<HostedSession> {
    if (this.closing) throw new ReinsError('process_exited', 'The Reins daemon is shutting down.');
    if (!this.harnesses.includes(params.harness)) {
      throw new ReinsError(
        'invalid_input',
        `This daemon does not offer the ${params.harness} harness. It offers: ${this.harnesses.join(', ') || 'none'}.`,
        { harness: params.harness },
      );
    }
    const harness = await createHarness(params.harness, {
      ...this.options.harnessOptions?.[params.harness],
      ...params.harnessOptions,
    });
    const session = await harness.createSession(params.spec);
    if (this.closing) {
      // The daemon began closing while the harness started: its process must not outlive us.
      await session.close();
      throw new ReinsError('process_exited', 'The Reins daemon is shutting down.');
    }
    if (this.sessions.has(session.id)) {
      await session.close();
      throw new ReinsError('protocol_error', `The ${params.harness} adapter reused session id ${session.id}.`);
    }
    const hosted = new HostedSession(session, this.options.eventBufferSize ?? DEFAULT_EVENT_BUFFER_SIZE, this.log);
    this.sessions.set(hosted.id, hosted);
    this.log.info('session created', { sessionId: hosted.id, harness: hosted.harness });
    void hosted.drained.then(() => {
      this.log.info('session closed', { sessionId: hosted.id, harness: hosted.harness });
      this.forgetOldClosedSessions();
    });
    return hosted;
  }

  /** Keeps the newest closed sessions (replayable, listed) and forgets the rest: memory stays bounded. */
  private forgetOldClosedSessions(): void {
    const keep = this.options.closedSessionsKept ?? 100;
    const closed = [...this.sessions.values()]
      .filter((hosted) => hosted.endedAt !== undefined)
      .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    for (const hosted of closed.slice(0, Math.max(0, closed.length - keep))) this.sessions.delete(hosted.id);
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const verdict = this.closing
      ? ({ allowed: false, status: 403, reason: 'The Reins daemon is shutting down.' } as const)
      : checkUpgrade(
          { origin: request.headers.origin, host: request.headers.host },
          { origins: this.origins, port: this.boundPort },
        );
    if (!verdict.allowed) {
      this.log.warn('upgrade refused', { reason: verdict.reason });
      const body = `${verdict.reason}\n`;
      socket.end(
        `HTTP/1.1 ${verdict.status} Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (webSocket) => {
      const connection = new DaemonConnection(webSocket, this);
      this.connections.add(connection);
      void connection.closed.then(() => this.connections.delete(connection));
      this.log.info('connection opened', { connection: connection.label });
    });
  }
}
