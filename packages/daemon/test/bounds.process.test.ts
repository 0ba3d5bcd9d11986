// Nothing a local process does can make the daemon grow without bound or start where it should not:
// before initialize a frame may be 64 KiB at most (1009), and only so many connections may wait
// to initialize (one more ends the one that waited longest); after it, big frames are fine. A client that never reads its answers is
// dropped with 1013 while others are served. A group- or world-writable REINS_HOME is refused
// with the fix. A daemon.json whose pid now belongs to another process does not block start-up,
// and a recorded process group whose pid was reused is never killed, while ours is reaped.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { mayBeRunning } from '../src/daemon-file.js';
import { type Daemon, type DaemonOptions, SqliteStore, STORE_FILE, startDaemon } from '../src/index.js';
import { canReadProcesses, readProcess } from '../src/processes/proc.js';
import { client, errorOf, RawSocket } from './helpers.js';
import { ScriptedHarness } from './scripted-harness.js';

let home: string;
let daemon: Daemon | undefined;
const lines: string[] = [];
const logger = {
  debug() {},
  info: (msg: string) => lines.push(msg),
  warn: (msg: string) => lines.push(msg),
  error: (msg: string) => lines.push(msg),
};
const cleanups: Array<() => unknown> = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-bounds-'));
  lines.length = 0;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await daemon?.close();
  daemon = undefined;
  await rm(home, { recursive: true, force: true });
});

async function start(options: DaemonOptions = {}): Promise<Daemon> {
  const harness = new ScriptedHarness();
  daemon = await startDaemon({ home, harnesses: ['codex'], logger, createHarness: async () => harness, ...options });
  return daemon;
}

async function raw(target: Daemon): Promise<RawSocket> {
  const socket = await RawSocket.open(target.url);
  cleanups.push(() => socket.close());
  return socket;
}

describe('before initialize', () => {
  it('a frame over 64 KiB closes the connection (1009); after initialize a 1 MiB frame is read and answered', async () => {
    const target = await start();
    const big = await raw(target);
    big.sendText(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { token: 'x'.repeat(70_000) } }),
    );
    expect((await big.closed).code).toBe(1009);
    expect(big.frames).toEqual([]);

    // Just under the limit is read (and refused for the wrong token, as any bad initialize is).
    const under = await raw(target);
    const refused = await under.request('initialize', { token: 'x'.repeat(60_000) });
    expect(refused.error?.data.code).toBe('auth_required');

    const authed = await raw(target);
    await authed.request('initialize', { token: target.token });
    const reply = await authed.request('session/send', { sessionId: 'nope', input: 'y'.repeat(1024 * 1024) });
    expect(reply.error?.data.message).toMatch(/Unknown session "nope"/);
    expect((await authed.request('session/list')).result).toEqual([]);
  });

  it('keeps at most the cap of connections waiting to initialize: one more ends the one that waited longest', async () => {
    const target = await start({ maxPendingConnections: 3 });
    const waiting = [await raw(target), await raw(target), await raw(target)];
    const next = await raw(target);
    expect((await waiting[0]?.closed)?.code).toBe(1006);
    expect((await next.request('initialize', { token: target.token })).result).toMatchObject({ protocolVersion: 1 });
    // The others kept their slots: they may still initialize.
    expect((await waiting[1]?.request('initialize', { token: target.token }))?.result).toMatchObject({
      protocolVersion: 1,
    });
    expect(lines).toContain('connection closed: the longest of too many waiting to initialize');
  });
});

describe('a client that does not read', () => {
  it('is dropped with 1013 once its unread answers pass the cap; the daemon keeps serving others', async () => {
    // Big answers: 40 stored sessions with long working directories (~400 KiB per session/list).
    const store = await SqliteStore.open(join(home, STORE_FILE));
    for (let index = 0; index < 40; index++) {
      const cwd = `/work/${String(index).padStart(2, '0')}/${'deep/'.repeat(2_000)}`;
      await store.putSession({
        sessionId: `stored-${index}`,
        harness: 'codex',
        cwd,
        spec: { cwd },
        state: 'open',
        generation: 0,
        createdAt: index,
        updatedAt: index,
      });
    }
    await store.close();
    const target = await start({ maxBufferedBytes: 512 * 1024 });
    const socket = new WebSocket(target.url);
    cleanups.push(() => socket.terminate());
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    let answers = 0;
    socket.on('message', () => {
      answers++;
    });
    // Version 2: its session/list carries the working directories.
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { token: target.token, protocolVersion: 2 },
      }),
    );
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));
    // Stop reading (the kernel buffers fill, then the daemon's), and keep asking.
    (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const requests = 200;
    for (let id = 1; id <= requests; id++) socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'session/list' }));
    const deadline = Date.now() + 20_000;
    while (!lines.includes('slow consumer dropped') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines).toContain('slow consumer dropped');
    // Others are served meanwhile.
    const other = await client(target.url, target.token);
    cleanups.push(() => other.close());
    expect(await other.listSessions()).toHaveLength(40);
    // Reading again, the client gets what was sent before the cut, then the close code.
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(1013);
    expect(answers).toBeLessThan(requests);
  });
});

describe('REINS_HOME', () => {
  it('is refused when group- or world-writable, with the command that fixes it', async () => {
    await chmod(home, 0o775);
    const group = await errorOf(start());
    expect(group.code).toBe('invalid_input');
    expect(group.message).toMatch(/group-writable \(mode 775\).*capture.*Fix it with: chmod go-w /);
    await chmod(home, 0o757);
    expect((await errorOf(start())).message).toMatch(/world-writable/);
    await chmod(home, 0o700);
    await start();
  });

  it('is created 0700 when missing', async () => {
    const fresh = join(home, 'nested', 'reins');
    daemon = await startDaemon({ home: fresh, harnesses: ['codex'], logger });
    expect((await stat(fresh)).mode & 0o777).toBe(0o700);
  });
});

describe.runIf(canReadProcesses)('stale state left by a dead daemon', () => {
  it('a daemon.json whose pid now belongs to another process does not block start-up', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanups.push(() => other.kill('SIGKILL'));
    await new Promise((resolve) => other.once('spawn', resolve));
    const stale = {
      url: 'ws://127.0.0.1:1',
      pid: other.pid,
      token: 'old',
      protocolVersion: 2,
      startedAt: Date.now() - 60_000,
    };
    expect(mayBeRunning(stale as never)).toBe(false);
    expect(mayBeRunning({ ...stale, pid: process.pid, startedAt: Date.now() } as never)).toBe(true);
    await writeFile(join(home, 'daemon.json'), JSON.stringify(stale), { mode: 0o600 });
    const target = await start();
    expect(JSON.parse(await readFile(target.infoPath, 'utf8'))).toMatchObject({
      pid: process.pid,
      token: target.token,
    });
    expect(lines).toContain('replaced a stale daemon.json');
    expect(other.exitCode).toBeNull();
  });

  it('at start, a recorded group with a reused pid is left alone and a recorded group of ours is reaped', async () => {
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const ours = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    cleanups.push(() => stranger.kill('SIGKILL'));
    cleanups.push(() => ours.kill('SIGKILL'));
    await Promise.all([stranger, ours].map((child) => new Promise((resolve) => child.once('spawn', resolve))));
    const bootId = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
    const ticks = (pid: number) => readProcess(pid)?.startTicks as string;
    const record = (pid: number, startTicks: string) => ({
      id: `${bootId}:${pid}:${startTicks}`,
      pgid: pid,
      pid,
      startTicks,
      bootId,
      label: 'sleep',
      startedAt: 1,
    });
    await mkdir(home, { recursive: true });
    const store = await SqliteStore.open(join(home, STORE_FILE));
    // The stranger's pid was ours once, with an earlier start time: the kernel reused it.
    await store.recordProcessGroup(record(stranger.pid as number, String(Number(ticks(stranger.pid as number)) - 100)));
    await store.recordProcessGroup(record(ours.pid as number, ticks(ours.pid as number)));
    await store.close();
    const oursExited = new Promise((resolve) => ours.once('exit', resolve));
    await start();
    await oursExited;
    expect(stranger.exitCode).toBeNull();
    expect(readProcess(stranger.pid as number)?.state).not.toBe('Z');
    expect(lines).toContain('reaped a process group left by a daemon that died');
    expect(lines).toContain('left a recorded process group alone');
  });
});
