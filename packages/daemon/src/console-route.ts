// The web console over plain HTTP: GET / (and the console's hashed assets) from the build of
// @reins/console, on the daemon's own port. Files are read once into memory, so a request path is
// only ever looked up, never joined onto a folder. Every answer carries a strict
// Content-Security-Policy (scripts, styles and images from this origin only, the WebSocket to this
// daemon only, no framing, no inline code) and nosniff; the Host header must be one of the
// daemon's names (DNS rebinding, as for the WebSocket: upgrade-guard.ts). The token travels in the URL fragment, which
// browsers never send, and nothing here logs a request line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { PROTOCOL_VERSION } from '@reins/protocol';
import { type DaemonNames, namesThisDaemon } from './upgrade-guard.js';

interface Asset {
  body: Buffer;
  type: string;
  /** Hashed file names never change content: cache them; index.html must always be fresh. */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Where the built console is: @reins/console's dist/app, when that package is installed and built. */
export function defaultConsoleDir(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@reins/console/package.json');
    return join(dirname(manifest), 'dist', 'app');
  } catch {
    return undefined;
  }
}

/** The policy of every console answer: nothing but this daemon, its files and its WebSocket. */
export function consoleSecurityPolicy(names: DaemonNames): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${names.sockets.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Reads every file of the build (small: an index, a script, a stylesheet, an icon) keyed by URL path. */
export function loadConsoleAssets(dir: string): Map<string, Asset> | undefined {
  let index: Buffer;
  try {
    index = readFileSync(join(dir, 'index.html'));
  } catch {
    return undefined;
  }
  const assets = new Map<string, Asset>([
    ['/', { body: index, type: CONTENT_TYPES['.html'] as string, immutable: false }],
  ]);
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const type = CONTENT_TYPES[extname(name).toLowerCase()];
      if (!type) continue; // only what a browser needs, typed
      const url = `/${relative(dir, path).split(sep).join('/')}`;
      assets.set(url, { body: readFileSync(path), type, immutable: url.startsWith('/assets/') });
    }
  };
  walk(dir);
  return assets;
}

export class ConsoleRoute {
  private assets: Map<string, Asset> | undefined;

  constructor(
    private readonly dir: string | undefined,
    private readonly names: () => DaemonNames,
  ) {}

  handle(request: IncomingMessage, response: ServerResponse): void {
    const names = this.names();
    const headers: Record<string, string> = {
      'content-security-policy': consoleSecurityPolicy(names),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    };
    const reply = (status: number, type: string, body: Buffer | string, extra: Record<string, string> = {}) => {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      response.writeHead(status, {
        ...headers,
        'content-type': type,
        'content-length': String(bytes.length),
        ...extra,
      });
      response.end(request.method === 'HEAD' ? undefined : bytes);
    };
    const text = 'text/plain; charset=utf-8';
    if (!namesThisDaemon(request.headers.host, names)) {
      reply(403, text, `Host "${request.headers.host ?? ''}" is not this daemon.\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply(405, text, 'The console is read with GET.\n', { allow: 'GET, HEAD' });
      return;
    }
    const path = (request.url ?? '/').split('?')[0]?.split('#')[0] ?? '/';
    this.assets ??= this.dir ? loadConsoleAssets(this.dir) : undefined;
    if (!this.assets) {
      reply(
        503,
        text,
        `This is the Reins daemon (protocol ${PROTOCOL_VERSION}; connect with a WebSocket). Its web console is not built: run \`npm run build\` in the Reins checkout.\n`,
      );
      return;
    }
    const asset = this.assets.get(path === '/index.html' ? '/' : path);
    if (!asset) {
      reply(404, text, 'Not found. The console is at /.\n');
      return;
    }
    reply(200, asset.type, asset.body, {
      'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    });
  }
}
