// The console's entry: takes the daemon's token from the URL fragment that `reins console` opened
// (`#token=...`; a fragment never reaches the daemon, so the token is in no request line and no
// log), keeps it for this tab and clears it from the address bar, then connects to the daemon that
// served the page.
//
// It connects before React is even loaded: this chunk holds only the connection (@reins/client,
// zod, the view models), and the UI (React, the pages) is a chunk of its own, fetched beside it (a
// modulepreload link in index.html, see vite.config.ts) and imported once the socket is on its way.
// A page opened on `#/session/<id>` starts following that session here too, so the daemon reads
// the session's log while the page evaluates React and renders (bench figure 10: the page's start
// was a third of opening a 20,000-event session).
import { config as zodConfig } from 'zod';
import { daemonUrlOf } from './api/daemon-api.js';
import { ConsoleState } from './app/console-state.js';
import { linkFromHash, parseRoute } from './model/route.js';
import './ui/theme.css';
import './ui/layout.css';
import './ui/transcript.css';
import './ui/pages.css';

const TOKEN_KEY = 'reins.console.token';

// zod probes for eval (its JIT) with Function(''): under the console's Content-Security-Policy that
// is a violation report on every load. It parses as well without.
zodConfig({ jitless: true });

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
const state = token
  ? new ConsoleState(daemonUrlOf(window.location), token, sessionStorage.getItem(CWD_KEY) ?? undefined)
  : undefined;
if (state) {
  state.start();
  const route = parseRoute(window.location.hash);
  // The session page takes this same model (ConsoleState.session keeps one per session).
  if (route.page === 'session') state.session(route.sessionId);
}
const ui = await import('./ui/mount.js');
ui.mount(document.getElementById('root') as HTMLElement, state);
