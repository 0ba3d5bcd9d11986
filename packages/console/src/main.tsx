// The console's entry: takes the daemon's token from the URL fragment that `reins console` opened
// (`#token=...`; a fragment never reaches the daemon, so the token is in no request line and no
// log), keeps it for this tab and clears it from the address bar, then connects to the daemon that
// served the page.
import { createRoot } from 'react-dom/client';
import { config as zodConfig } from 'zod';
import { daemonUrlOf } from './api/daemon-api.js';
import { ConsoleState } from './app/console-state.js';
import { tokenFromHash } from './model/route.js';
import { App, NoToken } from './ui/App.js';
import './ui/styles.css';

const TOKEN_KEY = 'reins.console.token';

// zod probes for eval (its JIT) with Function(''): under the console's Content-Security-Policy that
// is a violation report on every load. It parses as well without.
zodConfig({ jitless: true });

function takeToken(): string | undefined {
  const fromHash = tokenFromHash(window.location.hash);
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    window.history.replaceState(null, '', `${window.location.pathname}#/`);
    return fromHash;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

// A new link pasted into this tab (after a daemon restart, say) changes only the fragment: the page
// does not load again by itself, so take the new token and start over with it.
window.addEventListener('hashchange', () => {
  if (tokenFromHash(window.location.hash) !== undefined) {
    takeToken();
    window.location.reload();
  }
});

const root = createRoot(document.getElementById('root') as HTMLElement);
const token = takeToken();
if (!token) {
  root.render(<NoToken />);
} else {
  const state = new ConsoleState(daemonUrlOf(window.location), token);
  state.start();
  root.render(<App state={state} />);
}
