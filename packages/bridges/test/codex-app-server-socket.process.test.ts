// Process level: `reins bridge codex-app-server --listen ws://|unix://` as `codex app-server` 0.171.0
// serves them, in front of the FAKE Claude Code: the health endpoints, the capability token (missing,
// wrong, right), a browser Origin refused, two clients at once sharing a thread, unix:// with the
// socket closed to other users, the flags Codex refuses refused alike (exit 2), and no harness
// process left after SIGTERM.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HARNESS_FIXTURES, processesWithMarker, REINS } from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const TOKEN = 'capability-token-for-the-test';

let workdir: string;
let tokenFile: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-codex-socket-'));
  await chmod(FAKE_CLAUDE, 0o755);
  tokenFile = join(workdir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  return () => rm(workdir, { recursive: true, force: true });
});

function env(marker: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: workdir,
    TMPDIR: workdir,
    IS_SANDBOX: '1',
    FAKE_CLAUDE_FIXTURE: join(HARNESS_FIXTURES, 'claude-code/fixtures/text-turn.2.1.197.jsonl'),
    REINS_BRIDGE_TEST_MARKER: marker,
  };
}

const bridgeArgs = (listen: string, extra: string[] = []) => [
  REINS,
  'bridge',
  'codex-app-server',
  '-H',
  'claude-code',
  '--binary',
  FAKE_CLAUDE,
  'app-server',
  '--listen',
  listen,
  ...extra,
];

interface Running {
  child: ChildProcess;
  stderr: () => string;
  marker: string;
  exited: Promise<number | null>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const bridge of running.splice(0)) {
    bridge.child.kill('SIGTERM');
    expect(await bridge.exited).toBe(0);
    await until(() => processesWithMarker(bridge.marker).length === 0, 'no process of the bridge left', 15_000);
  }
});

async function startBridge(listen: string, extra: string[] = []): Promise<Running & { port?: number }> {
  const marker = randomUUID();
  const child = spawn(process.execPath, bridgeArgs(listen, extra), { env: env(marker), cwd: workdir });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const bridge = { child, stderr: () => stderr, marker, exited };
  running.push(bridge);
  await until(() => /listening on: \S+/.test(stderr), `the bridge to listen (stderr: ${stderr})`, 20_000);
  const port = /listening on: ws:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1];
  return { ...bridge, ...(port ? { port: Number(port) } : {}) };
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

/** The HTTP status and body of a refused upgrade (or 101 when accepted). */
function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    ws.on('error', () => {});
  });
}

type Message = Record<string, unknown> & { id?: number; method?: string; params?: Record<string, unknown> };

/** A Codex client over one WebSocket. */
class SocketClient {
  readonly messages: Message[] = [];
  private nextId = 1;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(String(data)) as Message));
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SocketClient> {
    const ws = new WebSocket(url, { headers });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const client = new SocketClient(ws);
    await client.request('initialize', { clientInfo: { name: 'socket-test', version: '1' } });
    client.ws.send(JSON.stringify({ method: 'initialized' }));
    return client;
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    await until(
      () => this.messages.some((message) => message.id === id && !message.method),
      `the answer to ${method}`,
      15_000,
    );
    const answer = this.messages.find((message) => message.id === id && !message.method) as Message;
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result as Record<string, unknown>;
  }

  notifications(method: string): Message[] {
    return this.messages.filter((message) => message.method === method && message.id === undefined);
  }
}

describe('reins bridge codex-app-server --listen ws:// (fake Claude Code)', () => {
  it('answers /readyz and /healthz, and refuses a missing or wrong token and a browser Origin', async () => {
    const bridge = await startBridge('ws://127.0.0.1:0', [
      '--ws-auth',
      'capability-token',
      '--ws-token-file',
      tokenFile,
    ]);
    const port = bridge.port as number;
    expect(await get(port, '/readyz')).toBe(200);
    expect(await get(port, '/healthz')).toBe(200);
    const url = `ws://127.0.0.1:${port}`;
    expect(await upgrade(url, {})).toEqual({ status: 401, body: 'missing websocket bearer token' });
    expect(await upgrade(url, { authorization: 'Bearer not-the-token' })).toEqual({
      status: 401,
      body: 'invalid websocket bearer token',
    });
    expect((await upgrade(url, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).status).toBe(403);
    expect((await upgrade(url, { authorization: `Bearer ${TOKEN}` })).status).toBe(101);
  }, 60_000);

  it('serves two clients at once: a turn one starts is heard by the other, which can read the thread', async () => {
    const bridge = await startBridge('ws://127.0.0.1:0');
    const url = `ws://127.0.0.1:${bridge.port}`;
    const [first, second] = await Promise.all([SocketClient.open(url), SocketClient.open(url)]);
    const started = await first.request('thread/start', { cwd: workdir });
    const threadId = (started.thread as { id: string }).id;
    await first.request('turn/start', { threadId, input: [{ type: 'text', text: 'Say hello', text_elements: [] }] });
    for (const client of [first, second]) {
      await until(() => client.notifications('turn/completed').length === 1, 'turn/completed on both clients', 15_000);
    }
    const read = await second.request('thread/read', { threadId, includeTurns: true });
    expect((read.thread as { id: string }).id).toBe(threadId);
    const loaded = await second.request('thread/loaded/list', {});
    expect(loaded.data).toEqual([threadId]);
    first.ws.close();
    second.ws.close();
  }, 60_000);
});

describe('reins bridge codex-app-server --listen unix://PATH (fake Claude Code)', () => {
  it('serves the WebSocket protocol on a socket only this user can open', async () => {
    const path = join(workdir, `bridge-${randomUUID().slice(0, 8)}.sock`);
    await startBridge(`unix://${path}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const client = await SocketClient.open(`ws+unix://${path}:/`);
    const started = await client.request('thread/start', { cwd: workdir });
    expect(typeof (started.thread as { id: string }).id).toBe('string');
    client.ws.close();
  }, 60_000);
});

describe('reins bridge codex-app-server transport flags refused as Codex refuses them (exit 2)', () => {
  const refusal = (extra: string[]) => {
    const result = spawnSync(
      process.execPath,
      [REINS, 'bridge', 'codex-app-server', '-H', 'claude-code', '--binary', FAKE_CLAUDE, ...extra],
      {
        env: env(randomUUID()),
        encoding: 'utf8',
      },
    );
    return { status: result.status, stderr: result.stderr };
  };

  it('refuses ws:// off loopback without auth, a host name, signed bearer tokens and a token without its mode', () => {
    const offLoopback = refusal(['--listen', 'ws://0.0.0.0:45999']);
    expect(offLoopback.status).toBe(2);
    expect(offLoopback.stderr).toMatch(
      /refusing to start non-loopback websocket listener 0\.0\.0\.0:45999 without auth/,
    );
    const named = refusal(['--listen', 'ws://localhost:45999']);
    expect(named.status).toBe(2);
    expect(named.stderr).toMatch(/expected `ws:\/\/IP:PORT`/);
    const signed = refusal(['--listen', 'ws://127.0.0.1:0', '--ws-auth', 'signed-bearer-token']);
    expect(signed.status).toBe(2);
    expect(signed.stderr).toMatch(/signed-bearer-token is not served/);
    const noToken = refusal(['--listen', 'ws://127.0.0.1:0', '--ws-auth', 'capability-token']);
    expect(noToken.status).toBe(2);
    expect(noToken.stderr).toMatch(/`--ws-token-file` or `--ws-token-sha256` is required/);
    const http = refusal(['--listen', 'http://127.0.0.1:1']);
    expect(http.status).toBe(2);
    expect(http.stderr).toMatch(/unsupported --listen URL/);
  }, 60_000);
});
