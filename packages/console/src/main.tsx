// The console's entry: takes the daemon's token from the URL fragment that `reins console` opened
// (`#token=...`; a fragment never reaches the daemon, so the token is in no request line and no
// log), keeps it for this tab and clears it from the address bar, then opens the WebSocket to the
// daemon that served the page before anything else is loaded.
//
// This chunk is kept to what that takes. The connection (app/start.ts: @reins/client, zod, the
// schemas, the view models) and the UI (React, the pages) are chunks of their own, fetched beside
// it (modulepreload links in index.html, see vite.config.ts): the daemon accepts the socket while
// the page evaluates them (bench figure 10: the page's start was a third of opening a 20,000-event
// session, and building the schemas is most of the connection chunk's evaluation).
import { daemonUrlOf } from './api/first-socket.js';
import { linkFromHash } from './model/route.js';
import './ui/theme.css';
import './ui/layout.css';
import './ui/transcript.css';
import './ui/pages.css';

const TOKEN_KEY = 'reins.console.token';
const CWD_KEY = 'reins.console.cwd';

function takeToken(): string | undefined {
  const link = linkFromHash(window.location.hash);
  if (link.token) {
    sessionStorage.setItem(TOKEN_KEY, link.token);
    if (link.cwd) sessionStorage.setItem(CWD_KEY, link.cwd);
    else sessionStorage.removeItem(CWD_KEY);
    window.history.replaceState(null, '', `${window.location.pathname}#/`);
    return link.token;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

// A new link pasted into this tab (after a daemon restart, say) changes only the fragment: the page
// does not load again by itself, so take the new token and start over with it.
window.addEventListener('hashchange', () => {
  if (linkFromHash(window.location.hash).token !== undefined) {
    takeToken();
    window.location.reload();
  }
});

const token = takeToken();
const url = daemonUrlOf(window.location);
// Without a token there is nothing to connect with: the page says how to get a link.
const firstSocket = token ? new WebSocket(url) : undefined;
const { start } = await import('./app/start.js');
await start({ url, token, cwd: sessionStorage.getItem(CWD_KEY) ?? undefined, firstSocket });
