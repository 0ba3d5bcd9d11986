// Where the console is, in the URL fragment (never sent to the daemon): `#token=<token>` is how
// `reins console` hands over the daemon's token; the console keeps it for the tab (sessionStorage)
// and takes it out of the address bar, which then shows the page: `#/`, `#/new`, `#/doctor`,
// `#/session/<id>`, `#/conversations/<harness>`.

export type Route =
  | { page: 'home' }
  | { page: 'new' }
  | { page: 'doctor' }
  | { page: 'session'; sessionId: string }
  | { page: 'conversations'; harness?: string };

/** The token a `#token=...` fragment carries (with or without other parameters). */
export function tokenFromHash(hash: string): string | undefined {
  const body = hash.replace(/^#/, '');
  if (!body.startsWith('token=') && !body.includes('&token=')) return undefined;
  const params = new URLSearchParams(body);
  const token = params.get('token');
  return token ? token : undefined;
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
