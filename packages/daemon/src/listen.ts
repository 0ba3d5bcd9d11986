// Where the daemon listens and with which token (pure, except reading the token file and the list
// of this machine's interfaces). By default
// it binds 127.0.0.1 on a free port with a fresh random token per start. `--listen HOST:PORT` binds
// another address; any address outside loopback needs `--token-file`, so that every gateway
// behind one address (a Kubernetes Service) accepts the same token, a secret the operator made and
// mounted, instead of one nobody outside this machine can read (docs/architecture/daemon.md,
// "Listening beyond this machine"). The checks of the file itself are in token-file.ts.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ReinsError } from '@reins/core';
import { readTokenFile } from './token-file.js';

export const LOOPBACK_HOST = '127.0.0.1';

export interface ListenOptions {
  /** `HOST:PORT` (IPv6 in brackets: `[::]:7777`); exclusive with `host` and `port`. */
  listen?: string | undefined;
  /** The address to bind (an IP address; default 127.0.0.1). */
  host?: string | undefined;
  /** The port (default 0: any free one). */
  port?: number | undefined;
  /** A file holding the token every client must present (required off loopback). */
  tokenFile?: string | undefined;
}

export interface ListenPlan {
  /** The IP address to bind, IPv6 without brackets. */
  host: string;
  port: number;
  /** Whether only this machine can reach the address. */
  loopback: boolean;
  /** Whether the address is 0.0.0.0 or :: (every interface of this machine). */
  wildcard: boolean;
}

/** `HOST:PORT` -> { host, port }; IPv6 goes in brackets. A bad value is invalid_input saying how to write it. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(value.trim()) ?? /^([^:[\]]+):(\d+)$/.exec(value.trim());
  if (!match) {
    throw new ReinsError(
      'invalid_input',
      `--listen takes HOST:PORT, e.g. --listen 0.0.0.0:7777, --listen 127.0.0.1:0 or --listen [::]:7777; got "${value}".`,
      { data: { field: 'listen' } },
    );
  }
  const [, host, port] = match as unknown as [string, string, string];
  return { host: checkHost(host), port: checkPort(Number(port)) };
}

function checkHost(host: string): string {
  if (isIP(host) === 0) {
    throw new ReinsError(
      'invalid_input',
      `The daemon binds an IP address, not a name: "${host}" is refused. Use 127.0.0.1 (this machine), 0.0.0.0 (every interface) or one interface's address.`,
      { data: { field: 'listen', host } },
    );
  }
  return host.toLowerCase();
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ReinsError('invalid_input', `The port must be a whole number from 0 to 65535, got ${port}.`, {
      data: { field: 'port' },
    });
  }
  return port;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback: addresses only this machine reaches. */
export function isLoopbackAddress(host: string): boolean {
  const address = host.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(address) === 4) return address.startsWith('127.');
  return address === '::1' || address === '0:0:0:0:0:0:0:1';
}

export function isWildcardAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0';
}

/**
 * Checks where to listen: the address, the port, and that an address other machines can reach comes
 * with a token file. Pure (the file itself is read by `listenToken`).
 */
export function planListen(options: ListenOptions): ListenPlan {
  let host: string;
  let port: number;
  if (options.listen !== undefined) {
    if (options.host !== undefined || options.port !== undefined) {
      throw new ReinsError(
        'invalid_input',
        '--listen HOST:PORT already says the address and the port: drop --port (or the host and port options).',
        { data: { field: 'listen' } },
      );
    }
    ({ host, port } = parseListen(options.listen));
  } else {
    host = checkHost(options.host ?? LOOPBACK_HOST);
    port = checkPort(options.port ?? 0);
  }
  const loopback = isLoopbackAddress(host);
  if (!loopback && options.tokenFile === undefined) {
    throw new ReinsError(
      'invalid_input',
      `Listening on ${formatAddress(host, port)} lets other machines reach this daemon, so it needs a shared secret token: add --token-file PATH (a file of yours, mode 0600, holding at least 32 random characters, e.g. made with \`openssl rand -base64 32\`), or listen on 127.0.0.1.`,
      { data: { field: 'tokenFile', host } },
    );
  }
  return { host, port, loopback, wildcard: isWildcardAddress(host) };
}

/** The token of this start: the token file's, or a fresh random one (256 bits). */
export async function listenToken(options: ListenOptions): Promise<string> {
  if (options.tokenFile !== undefined) return readTokenFile(options.tokenFile);
  return randomBytes(32).toString('base64url');
}

/** `host:port`, IPv6 in brackets (as in a URL or a Host header). */
export function formatAddress(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * Where a client on this machine connects (daemon.json's url): the bound address, or 127.0.0.1
 * when the daemon listens on every interface (Node binds :: dual-stack, so 127.0.0.1 is in it).
 */
export function localUrl(plan: Pick<ListenPlan, 'host' | 'wildcard'>, port: number): string {
  return `ws://${formatAddress(plan.wildcard ? LOOPBACK_HOST : plan.host, port)}`;
}

/**
 * The IP addresses clients may reach this daemon at directly (beside loopback): the one it binds,
 * or, on 0.0.0.0 or ::, every interface's (IPv4 only on 0.0.0.0; IPv6 link-local ones left out, a
 * Host header cannot carry their zone). A pod's own IP is one of them, so a client or a probe that
 * dials the pod by IP is answered.
 */
export function reachableAddresses(plan: Pick<ListenPlan, 'host' | 'wildcard' | 'loopback'>): string[] {
  if (!plan.wildcard) return plan.loopback && plan.host === LOOPBACK_HOST ? [] : [plan.host];
  const ipv6 = plan.host !== '0.0.0.0';
  const found: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv6' && (!ipv6 || entry.address.toLowerCase().startsWith('fe80:'))) continue;
      if (!found.includes(entry.address)) found.push(entry.address);
    }
  }
  return found;
}
