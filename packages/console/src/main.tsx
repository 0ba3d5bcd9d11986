// The console's entry: takes the daemon's token from the URL fragment that `reins console` opened
// (`#token=...`; a fragment never reaches the daemon, so the token is in no request line and no
// log), keeps it for this tab and clears it from the address bar, then connects to the daemon that
// served the page.
import { createRoot } from 'react-dom/client';
import { config as zodConfig } from 'zod';
import { daemonUrlOf } from './api/daemon-api.js';
import { ConsoleState } from './app/console-state.js';
import { linkFromHash } from './model/route.js';
import { App, NoToken } from './ui/App.js';
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

const root = createRoot(document.getElementById('root') as HTMLElement);
const token = takeToken();
if (!token) {
  root.render(<NoToken />);
} else {
  const state = new ConsoleState(daemonUrlOf(window.location), token, sessionStorage.getItem(CWD_KEY) ?? undefined);
  state.start();
  root.render(<App state={state} />);
}
