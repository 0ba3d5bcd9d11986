// The bridge as a WebSocket server, as `codex app-server --listen ws://IP:PORT|unix://PATH` 0.171.0
// serves: one JSON-RPC message per text frame, any number of clients at once (each its own
// connection, the threads shared: clients.ts). ws:// answers GET /readyz and /healthz, refuses a
// browser (any Origin header: 403) and, with a capability token, a missing or wrong bearer token
// (401, Codex's wording). unix:// speaks the same WebSocket on a socket only this user can open
// (0600), with no token and no health endpoints, as Codex does (docs/architecture/bridges.md,
// "Transports"). It runs until a signal, then closes every thread.
import { timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import { runUntilStopped, type StopReason } from '../lifecycle.js';
import type { ListenPlan } from './listen.js';
import { sha256 } from './listen.js';
import { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './server.js';
import { webSocketServer } from './ws-server.js';

/** Codex announces the largest message it takes in one frame; so does the bridge (16 MiB). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface CodexSocketBridgeOptions extends CodexAppServerBridgeOptions {
  plan: Extract<ListenPlan, { kind: 'ws' } | { kind: 'unix' }>;
  /** Told the address once listening (ws: its URLs; unix: the socket path). */
  announce?: (lines: string[]) => void;
  shutdownGraceMs?: number;
  /** Resolves to stop the server (tests); signals stop it too. */
  stop?: Promise<void>;
}

export interface ListeningBridge {
  bridge: CodexAppServerBridge;
  /** ws: the port bound (the one asked for, or the free one chosen for port 0). */
  port?: number;
  close: () => Promise<void>;
}

function refuse(socket: Duplex, status: string, body = ''): void {
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Why an upgrade is refused (status line and body), or undefined to accept it. */
export function upgradeRefusal(
  headers: IncomingMessage['headers'],
  tokenSha256: Buffer | undefined,
): { status: string; body: string } | undefined {
  // A browser page may open a WebSocket to any local port; no Codex client sends an Origin.
  if (headers.origin !== undefined) return { status: '403 Forbidden', body: '' };
  if (!tokenSha256) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  if (!match) return { status: '401 Unauthorized', body: 'missing websocket bearer token' };
  if (!timingSafeEqual(sha256((match[1] as string).trim()), tokenSha256)) {
    return { status: '401 Unauthorized', body: 'invalid websocket bearer token' };
  }
  return undefined;
}

/** Starts listening; the returned handle closes the server and every thread. */
export async function listenCodexAppServer(options: CodexSocketBridgeOptions): Promise<ListeningBridge> {
  const { plan } = options;
  const log = options.log ?? (() => {});
  const bridge = new CodexAppServerBridge(options);
  const wss = webSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  wss.on('headers', (headers) =>
    headers.push(`x-codex-websocket-max-unfragmented-message-bytes: ${MAX_MESSAGE_BYTES}`),
  );
  const server: Server = createServer((request, response) => {
    if (plan.kind === 'ws' && (request.url === '/readyz' || request.url === '/healthz')) {
      response.writeHead(200, { 'content-length': '0' }).end();
      return;
    }
    response
      .writeHead(400, { 'content-type': 'text/plain; charset=utf-8' })
      .end("Connection header did not include 'upgrade'");
  });
  server.on('upgrade', (request, socket, head) => {
    const refusal = plan.kind === 'ws' ? upgradeRefusal(request.headers, plan.tokenSha256) : undefined;
    if (refusal) {
      log(`refused a connection: ${refusal.status}${refusal.body ? ` (${refusal.body})` : ''}`);
      refuse(socket, refusal.status, refusal.body);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const { receive, disconnect } = bridge.connect((line) => {
        if (ws.readyState === ws.OPEN) ws.send(line);
      });
      ws.on('message', (data, isBinary) => {
        const text = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        if (isBinary) log('ignored a binary frame: the protocol is JSON text');
        else receive(text.toString('utf8'));
      });
      ws.on('error', (error) => log(`client connection: ${error.message}`));
      ws.on('close', () => void disconnect());
    });
  });
  let port: number | undefined;
  if (plan.kind === 'ws') {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(plan.port, plan.host, () => resolve());
    });
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : plan.port;
    const host = plan.host.includes(':') ? `[${plan.host}]` : plan.host;
    options.announce?.([
      'codex app-server (WebSockets), served by reins bridge',
      `  listening on: ws://${host}:${port}`,
      `  readyz: http://${host}:${port}/readyz`,
      `  healthz: http://${host}:${port}/healthz`,
    ]);
  } else {
    await prepareSocketPath(plan.path);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(plan.path, () => resolve());
    });
    chmodSync(plan.path, 0o600);
    options.announce?.([
      'codex app-server (WebSockets over a Unix socket), served by reins bridge',
      `  listening on: unix://${plan.path}`,
    ]);
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await bridge.close();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      // Idle keep-alive connections would hold close() open: end them first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    })();
    return closing;
  };
  return { bridge, ...(port !== undefined ? { port } : {}), close };
}

/** Makes the socket's folder (0700) and removes a socket nobody listens on any more. */
async function prepareSocketPath(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) return;
  if (!lstatSync(path).isSocket()) {
    throw new Error(`${path} exists and is not a socket; remove it or choose another --listen unix://PATH.`);
  }
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path, () => {
      probe.end();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
  if (live) throw new Error(`Another app-server listens on ${path}; stop it or choose another --listen unix://PATH.`);
  unlinkSync(path);
}

/** Serves until a signal (or `stop`), then closes every thread and the server. */
export async function serveCodexAppServerSocket(options: CodexSocketBridgeOptions): Promise<StopReason> {
  const listening = await listenCodexAppServer(options);
  const stop = options.stop ?? new Promise<void>(() => {});
  return runUntilStopped(
    stop,
    async () => {
      await listening.close();
      if (options.plan.kind === 'unix') unlinkQuietly(options.plan.path);
    },
    options.shutdownGraceMs ?? 2_500,
    (reason) => options.log?.(`shutting down (${reason}): closing ${listening.bridge.threadCount} thread(s)`),
  );
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
