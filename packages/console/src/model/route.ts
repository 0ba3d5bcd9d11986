// Where the console is, in the URL fragment (never sent to the daemon): `#token=<token>[&cwd=<dir>]`
// is how `reins console` hands over the daemon's token; the console keeps it for the tab (sessionStorage)
// and takes it out of the address bar, which then shows the page: `#/`, `#/new`, `#/doctor`,
// `#/session/<id>`, `#/conversations/<harness>`.

export type Route =
  | { page: 'home' }
  | { page: 'new' }
  | { page: 'doctor' }
  | { page: 'session'; sessionId: string }
  | { page: 'conversations'; harness?: string };

/**
 * What a `#token=...` link carries: the daemon's token and, optionally, `cwd`, the folder new
 * sessions start in by default (`reins console` passes the folder it was run in).
 */
export function linkFromHash(hash: string): { token?: string; cwd?: string } {
  const body = hash.replace(/^#/, '');
  if (!body.startsWith('token=') && !body.includes('&token=')) return {};
  const params = new URLSearchParams(body);
  const token = params.get('token');
  const cwd = params.get('cwd');
  return { ...(token ? { token } : {}), ...(cwd ? { cwd } : {}) };
}

/** The token a `#token=...` fragment carries (with or without other parameters). */
export function tokenFromHash(hash: string): string | undefined {
  return linkFromHash(hash).token;
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const parts = path.split('/').filter(Boolean).map(decodeSafely);
  const [page, argument] = parts;
  if (page === 'new') return { page: 'new' };
  if (page === 'doctor') return { page: 'doctor' };
  if (page === 'session' && argument) return { page: 'session', sessionId: argument };
  if (page === 'conversations')
    return argument ? { page: 'conversations', harness: argument } : { page: 'conversations' };
  return { page: 'home' };
}

export function routeHash(route: Route): string {
  switch (route.page) {
    case 'home':
      return '#/';
    case 'new':
      return '#/new';
    case 'doctor':
      return '#/doctor';
    case 'session':
      return `#/session/${encodeURIComponent(route.sessionId)}`;
    case 'conversations':
      return route.harness ? `#/conversations/${encodeURIComponent(route.harness)}` : '#/conversations';
  }
}

function decodeSafely(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
