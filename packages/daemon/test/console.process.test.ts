// The web console over HTTP on the daemon's own port: GET / and the build's assets with their
// content types, a strict Content-Security-Policy on every answer, nothing else served (no path
// outside the build, no other method), the Host guard, and the WebSocket open to the daemon's own
// origin (the console's) while other pages stay refused.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@reins/client';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Daemon, silentLogger, startDaemon } from '../src/index.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request (fetch would normalize the path and refuse to set Host). */
function get(port: number, path: string, options: { method?: string; host?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${port}` },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

let daemon: Daemon | undefined;
let dir: string | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function daemonWithConsole(): Promise<{ daemon: Daemon; build: string }> {
  dir = await mkdtemp(join(tmpdir(), 'reins-console-route-'));
  const build = join(dir, 'build');
  await mkdir(join(build, 'assets'), { recursive: true });
  await writeFile(
    join(build, 'index.html'),
    '<!doctype html><title>Reins console</title><script type="module" src="/assets/index-abc.js"></script>',
  );
  await writeFile(join(build, 'assets', 'index-abc.js'), 'console.log("console");');
  await writeFile(join(build, 'assets', 'index-abc.css'), 'body{}');
  await writeFile(join(build, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(dir, 'secret.txt'), 'not for the browser');
  daemon = await startDaemon({ home: join(dir, 'home'), harnesses: [], logger: silentLogger, consoleDir: build });
  return { daemon, build };
}

describe('daemon: the web console over HTTP', () => {
  it('serves the build at / with content types and a strict Content-Security-Policy', async () => {
    const { daemon } = await daemonWithConsole();
    const index = await get(daemon.port, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.body).toContain('<title>Reins console</title>');
    expect(index.headers['cache-control']).toBe('no-store');
    const policy = String(index.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      `connect-src ws://127.0.0.1:${daemon.port} ws://localhost:${daemon.port}`,
      "frame-ancestors 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['referrer-policy']).toBe('no-referrer');

    const script = await get(daemon.port, '/assets/index-abc.js?v=1');
    expect(script).toMatchObject({ status: 200, body: 'console.log("console");' });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toContain('immutable');
    expect((await get(daemon.port, '/assets/index-abc.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get(daemon.port, '/favicon.svg')).headers['content-type']).toBe('image/svg+xml');
    expect((await get(daemon.port, '/index.html')).status).toBe(200);
    const head = await get(daemon.port, '/', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('serves nothing outside the build, nothing but GET and HEAD, and only under our own Host', async () => {
    const { daemon } = await daemonWithConsole();
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/../../secret.txt', '/secret.txt', '/nope']) {
      const answer = await get(daemon.port, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('not for the browser');
      expect(answer.headers['content-security-policy']).toBeDefined();
    }
    expect((await get(daemon.port, '/', { method: 'POST' })).status).toBe(405);
    const rebound = await get(daemon.port, '/', { host: `evil.example:${daemon.port}` });
    expect(rebound.status).toBe(403);
    expect((await get(daemon.port, '/', { host: `localhost:${daemon.port}` })).status).toBe(200);
  });

  it('says how to build the console when it is not built, and never serves one when told not to', async () => {
    dir = await mkdtemp(join(tmpdir(), 'reins-console-route-'));
    daemon = await startDaemon({
      home: join(dir, 'home'),
      harnesses: [],
      logger: silentLogger,
      consoleDir: join(dir, 'missing'),
    });
    const missing = await get(daemon.port, '/');
    expect(missing.status).toBe(503);
    expect(missing.body).toMatch(/npm run build/);
    await daemon.close();
    daemon = await startDaemon({ home: join(dir, 'home'), harnesses: [], logger: silentLogger, consoleDir: false });
    expect((await get(daemon.port, '/')).status).toBe(503);
  });

  it("lets the console's own origin open the WebSocket, and refuses other pages", async () => {
    const { daemon } = await daemonWithConsole();
    const own = await connect({
      url: daemon.url,
      token: daemon.token,
      WebSocket: class extends WebSocket {
        constructor(url: string) {
          super(url, { headers: { origin: `http://127.0.0.1:${daemon.port}` } });
        }
      },
    });
    expect(own.info.protocolVersion).toBe(2);
    own.close();
    const refused = connect({
      url: daemon.url,
      token: daemon.token,
      WebSocket: class extends WebSocket {
        constructor(url: string) {
          super(url, { headers: { origin: 'http://evil.example' } });
        }
      },
    });
    await expect(refused).rejects.toMatchObject({ code: 'process_exited', message: expect.stringContaining('403') });
  });
});
