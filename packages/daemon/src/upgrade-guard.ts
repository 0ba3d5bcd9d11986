// Who may open a WebSocket to the daemon (or read its console), decided before the upgrade. A
// browser always sends Origin: only the daemon's own origins (its console, served at GET /) and
// listed origins pass, so another web page cannot reach the daemon on its own. The Host header
// must be one of the daemon's own names, which defeats DNS rebinding (a page whose hostname was
// re-pointed at this machine still sends its own Host). The names are its loopback addresses, the
// address it binds (every interface's address when it binds 0.0.0.0 or ::), and each
// `--public-origin` (the Service or ingress clients reach it through). Non-browser clients send
// no Origin.
import { isIP } from 'node:net';
import { ReinsError } from '@reins/core';

export interface UpgradeRequest {
  origin: string | undefined;
  host: string | undefined;
}

export type UpgradeVerdict = { allowed: true } | { allowed: false; status: 403; reason: string };

/** How clients name this daemon. */
export interface DaemonNames {
  /** Host header values (lower case, host[:port]) that name this daemon. */
  hosts: string[];
  /** The origins its console is served from (a browser on them may connect). */
  origins: string[];
  /** The WebSocket addresses its console may connect to (the policy's connect-src). */
  sockets: string[];
}

/** Normalizes `--allow-origin` values to origin form (scheme://host[:port]); refuses anything else. */
export function normalizeOrigins(origins: readonly string[], flag = '--allow-origin'): string[] {
  return origins.map((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ReinsError(
        'invalid_input',
        `${flag}: "${value}" is not an origin: give scheme://host[:port], e.g. http://localhost:5173.`,
      );
    }
    if (url.origin === 'null' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw new ReinsError(
        'invalid_input',
        `${flag}: "${value}" is not an origin: give scheme://host[:port] without a path, e.g. http://localhost:5173.`,
      );
    }
    return url.origin;
  });
}

/**
 * `--public-origin` values: where clients reach this daemon from outside (http:// or https://, e.g.
 * https://reins.example.com or http://reins-gateway.agents.svc:7777), in origin form.
 */
export function normalizePublicOrigins(origins: readonly string[]): string[] {
  const normalized = normalizeOrigins(origins, '--public-origin');
  for (const origin of normalized) {
    if (!origin.startsWith('http://') && !origin.startsWith('https://')) {
      throw new ReinsError(
        'invalid_input',
        `--public-origin: "${origin}" must be http:// or https:// (the address a browser opens the console at), e.g. https://reins.example.com.`,
      );
    }
  }
  return normalized;
}

/** The Host headers that name this daemon on loopback. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** The daemon's own origins on loopback: the console it serves at GET / connects from them. */
export function ownOrigins(port: number): string[] {
  return loopbackHosts(port).map((host) => `http://${host}`);
}

/**
 * Every name of a daemon on `port`: its loopback names, `addresses` (IP addresses it is reached at
 * directly: the one it binds, or each interface's), and `publicOrigins` (normalized).
 */
export function daemonNames(
  port: number,
  extra: { addresses?: readonly string[]; publicOrigins?: readonly string[] } = {},
): DaemonNames {
  const local = [...loopbackHosts(port)];
  for (const address of extra.addresses ?? []) {
    const host = `${isIP(address) === 6 ? `[${address.toLowerCase()}]` : address}:${port}`;
    if (!local.includes(host)) local.push(host);
  }
  const names: DaemonNames = {
    hosts: [...local],
    origins: local.map((host) => `http://${host}`),
    sockets: local.map((host) => `ws://${host}`),
  };
  for (const origin of extra.publicOrigins ?? []) {
    const url = new URL(origin);
    const secure = url.protocol === 'https:';
    // A browser leaves a default port out of Host; other clients may write it.
    const hosts = url.port === '' ? [url.host, `${url.host}:${secure ? 443 : 80}`] : [url.host];
    for (const host of hosts) if (!names.hosts.includes(host)) names.hosts.push(host);
    if (!names.origins.includes(url.origin)) names.origins.push(url.origin);
    const socket = `${secure ? 'wss' : 'ws'}://${url.host}`;
    if (!names.sockets.includes(socket)) names.sockets.push(socket);
  }
  return names;
}

/** Whether a Host header names this daemon. */
export function namesThisDaemon(host: string | undefined, names: DaemonNames): boolean {
  return host !== undefined && names.hosts.includes(host.toLowerCase());
}

export function checkUpgrade(
  request: UpgradeRequest,
  allowed: { origins: readonly string[]; names: DaemonNames },
): UpgradeVerdict {
  const { names } = allowed;
  if (!namesThisDaemon(request.host, names)) {
    return {
      allowed: false,
      status: 403,
      reason: `Host "${request.host ?? ''}" is not this daemon (expected ${names.hosts.join(' or ')}); if clients reach it by that name (a Service, an ingress), start it with --public-origin http://${request.host ?? 'NAME:PORT'}.`,
    };
  }
  if (
    request.origin !== undefined &&
    !allowed.origins.includes(request.origin) &&
    !names.origins.includes(request.origin)
  ) {
    return {
      allowed: false,
      status: 403,
      reason: `Origin "${request.origin}" is not allowed: start the daemon with --allow-origin ${request.origin} to let that page connect.`,
    };
  }
  return { allowed: true };
}
