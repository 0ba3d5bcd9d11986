// Fair doors (docs/architecture/daemon.md, "Fair doors"), against the built `reins daemon` as a
// subprocess: a local process without the token holds more un-initialized WebSockets than the pool
// (reopening each one the daemon closes) and hundreds of half-sent upgrade headers, while clients with
// the token connect and initialize, every one of them; the half-sent upgrades are closed by the daemon
// after its header timeout (10 s), not left open.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RawSocket } from './helpers.js';

const REINS_BIN = fileURLToPath(new URL('../../cli/bin/reins.js', import.meta.url));
/** More than the daemon's pool of connections waiting to initialize (128). */
const IDLE_SOCKETS = 160;
const HALF_OPEN = 300;
const CLIENTS = 12;

let home: string | undefined;
let daemon: ChildProcess | undefined;
let flooding = false;
const opened: Array<WebSocket | Socket> = [];

afterEach(async () => {
  flooding = false;
  for (const socket of opened.splice(0)) socket instanceof WebSocket ? socket.terminate() : socket.destroy();
  daemon?.kill('SIGTERM');
  if (daemon && daemon.exitCode === null) await new Promise((resolve) => daemon?.once('exit', resolve));
  daemon = undefined;
  if (home) await rm(home, { recursive: true, force: true });
});

async function startReinsDaemon(): Promise<{ url: string; token: string; port: number }> {
  home = await mkdtemp(join(tmpdir(), 'reins-doors-'));
  const child = spawn(process.execPath, [REINS_BIN, 'daemon'], {
    env: { ...process.env, REINS_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon = child;
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', () => {});
  await until(() => out.includes('Press Ctrl+C to stop') || child.exitCode !== null, 'the daemon to start', 30_000);
  expect(child.exitCode, out).toBeNull();
  const info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { url: string; token: string };
  return { ...info, port: Number(new URL(info.url).port) };
}

/** A WebSocket that never initializes; when the daemon closes it, the flood opens another. */
function holdIdleSocket(url: string): void {
  if (!flooding) return;
  const socket = new WebSocket(url);
  opened.push(socket);
  socket.on('error', () => {});
  socket.on('close', () => setTimeout(() => holdIdleSocket(url), 50));
}

/** A TCP connection that sends part of an upgrade request and then nothing; resolves when the daemon ends it. */
function halfSentUpgrade(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1', () => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`);
    });
    opened.push(socket);
    socket.resume(); // read the daemon's 408 and end, else 'close' never comes
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

describe('fair doors (reins daemon subprocess)', () => {
  it('clients with the token connect and initialize through a flood of idle sockets and half-sent upgrades; those are closed', async () => {
    const { url, token, port } = await startReinsDaemon();
    flooding = true;
    for (let index = 0; index < IDLE_SOCKETS; index++) holdIdleSocket(url);
    let halfOpenClosed = 0;
    for (let index = 0; index < HALF_OPEN; index++) void halfSentUpgrade(port).then(() => halfOpenClosed++);
    await until(
      () => opened.filter((s) => s instanceof WebSocket && s.readyState === WebSocket.OPEN).length >= 100,
      'the idle sockets to open',
      20_000,
    );
    // The pool is full before any client comes: the daemon has closed idle sockets and the flood reopened
    // them (on a fast machine the clients below can all be in within the flood's 50 ms reopen delay).
    await until(
      () => opened.filter((s) => s instanceof WebSocket).length > IDLE_SOCKETS,
      'the daemon to close the longest-waiting idle sockets and the flood to reopen them',
      20_000,
    );

    const answers: unknown[] = [];
    for (let index = 0; index < CLIENTS; index++) {
      const client = await RawSocket.open(url);
      const reply = await client.request('initialize', { token });
      answers.push(reply.result ?? reply.error);
      client.socket.close();
    }
    expect(answers).toEqual(Array.from({ length: CLIENTS }, () => expect.objectContaining({ protocolVersion: 1 })));
    // The flood went on the whole time: the pool was full when each client came.
    expect(opened.filter((s) => s instanceof WebSocket).length).toBeGreaterThan(IDLE_SOCKETS);
    flooding = false; // no more churn while the half-sent upgrades wait out their timeout

    // Not one half-sent upgrade got an answer or was let be: the daemon closes each after its header timeout.
    await until(
      () => halfOpenClosed === HALF_OPEN,
      `the half-sent upgrades to be closed (${halfOpenClosed} of ${HALF_OPEN})`,
      40_000,
    );
    expect(halfOpenClosed).toBe(HALF_OPEN);
  }, 90_000);
});
