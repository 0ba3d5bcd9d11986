// A minimal OpenClaw gateway client (WebSocket protocol v4) for the smoke test: wait for the port, the
// challenge/connect handshake with back-off while the gateway reports itself starting, requests with
// deadlines, and events collected in order.
import { connect as tcpConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { scaled } from './deadlines.js';

export interface GatewayFrame {
  type: 'req' | 'res' | 'event';
  id?: string;
  ok?: boolean;
  payload?: Record<string, unknown>;
  error?: { code: string; message: string; retryable?: boolean; retryAfterMs?: number };
  event?: string;
  seq?: number;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls until the gateway listens; OpenClaw 2026.9.6 takes 15-19 s on 2 cores. */
export async function waitForPort(port: number, baseDeadlineMs: number, alive: () => boolean): Promise<void> {
  const deadlineMs = scaled(baseDeadlineMs);
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (!alive()) throw new Error(`gateway exited before port ${port} opened`);
    if (await portOpen(port)) return;
    await sleep(250);
  }
  throw new Error(`gateway port ${port} not open within ${deadlineMs} ms`);
}

export class GatewayConnection {
  readonly events: GatewayFrame[] = [];
  private readonly responses = new Map<string, GatewayFrame>();
  private readonly listeners = new Set<() => void>();
  private nextId = 1;
  private closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as GatewayFrame;
      if (frame.type === 'res' && frame.id) this.responses.set(frame.id, frame);
      else if (frame.type === 'event') this.events.push(frame);
      for (const listener of [...this.listeners]) listener();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** Opens a socket and completes connect; retries while the gateway answers a retryable error. */
  static async open(url: string, token: string, baseDeadlineMs: number): Promise<GatewayConnection> {
    const end = Date.now() + scaled(baseDeadlineMs);
    let lastError = 'no attempt';
    while (Date.now() < end) {
      const socket = new WebSocket(url);
      const connection = new GatewayConnection(socket);
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        await connection.waitFor('connect.challenge', () => connection.findEvent('connect.challenge'), 5_000);
        const hello = await connection.request(
          'connect',
          {
            minProtocol: 4,
            maxProtocol: 4,
            client: { id: 'gateway-client', version: '0.0.0', platform: process.platform, mode: 'backend' },
            role: 'operator',
            scopes: ['operator.read', 'operator.write', 'operator.admin'],
            caps: [],
            auth: { token },
            locale: 'en-US',
            userAgent: 'reins-smoke/0.0.0',
          },
          5_000,
        );
        if (hello.ok) return connection;
        lastError = JSON.stringify(hello.error);
        connection.close();
        if (!hello.error?.retryable) break;
        await sleep(hello.error.retryAfterMs ?? 500);
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        connection.close();
        await sleep(500);
      }
    }
    throw new Error(`gateway connect failed: ${lastError}`);
  }

  /** Sends a request; resolves with the whole `res` frame (ok or not) before the deadline. */
  request(method: string, params: unknown, deadlineMs: number): Promise<GatewayFrame> {
    const id = `r${this.nextId++}`;
    this.socket.send(JSON.stringify({ type: 'req', id, method, params }));
    return this.waitFor(`response to ${method}`, () => this.responses.get(id), deadlineMs);
  }

  findEvent(name: string, match: (payload: Record<string, unknown>) => boolean = () => true) {
    return this.events.find((frame) => frame.event === name && match(frame.payload ?? {}));
  }

  waitFor<T>(what: string, check: () => T | undefined, baseDeadlineMs: number): Promise<T> {
    const deadlineMs = scaled(baseDeadlineMs);
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value !== undefined) finish(() => resolve(value));
        else if (this.closed) finish(() => reject(new Error(`${what}: socket closed`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${what}: nothing within ${deadlineMs} ms`))),
        deadlineMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(attempt);
        settle();
      };
      this.listeners.add(attempt);
      attempt();
    });
  }

  close(): void {
    this.socket.terminate();
  }
}
