// Who may open a WebSocket to the daemon, decided before the upgrade. A browser always sends Origin:
// only the daemon's own origin (its console, served at GET /) and listed origins pass, so another
// web page cannot reach the daemon on its own. The Host header must name the loopback address we
// listen on, which defeats DNS rebinding (a page whose hostname was re-pointed at 127.0.0.1 still
// sends its own Host). Non-browser clients send no Origin.
import { ReinsError } from '@reins/core';

export interface UpgradeRequest {
  origin: string | undefined;
  host: string | undefined;
}

export type UpgradeVerdict = { allowed: true } | { allowed: false; status: 403; reason: string };

/** Normalizes `--allow-origin` values to origin form (scheme://host[:port]); refuses anything else. */
export function normalizeOrigins(origins: readonly string[]): string[] {
  return origins.map((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ReinsError(
        'invalid_input',
        `"${value}" is not an origin: give scheme://host[:port], e.g. http://localhost:5173.`,
      );
    }
    if (url.origin === 'null' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw new ReinsError(
        'invalid_input',
        `"${value}" is not an origin: give scheme://host[:port] without a path, e.g. http://localhost:5173.`,
      );
    }
    return url.origin;
  });
}

/** The Host headers that name this daemon. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** The daemon's own origins: the console it serves at GET / connects from them. */
export function ownOrigins(port: number): string[] {
  return loopbackHosts(port).map((host) => `http://${host}`);
}

export function checkUpgrade(
  request: UpgradeRequest,
  allowed: { origins: readonly string[]; port: number },
): UpgradeVerdict {
  const hosts = loopbackHosts(allowed.port);
  if (!request.host || !hosts.includes(request.host.toLowerCase())) {
    return {
      allowed: false,
      status: 403,
      reason: `Host "${request.host ?? ''}" is not this daemon (expected ${hosts.join(' or ')}).`,
    };
  }
  if (
    request.origin !== undefined &&
    !allowed.origins.includes(request.origin) &&
    !ownOrigins(allowed.port).includes(request.origin)
  ) {
    return {
      allowed: false,
      status: 403,
      reason: `Origin "${request.origin}" is not allowed: start the daemon with --allow-origin ${request.origin} to let that page connect.`,
    };
  }
  return { allowed: true };
}
