// The page's start after the entry opened its socket: the console's state on that socket (the
// client takes it over), the session of a `#/session/<id>` page followed at once, so the daemon
// reads its log while the page evaluates React and renders, then the UI.
import { config as zodConfig } from 'zod';
import { handingOver } from '../api/first-socket.js';
import { parseRoute } from '../model/route.js';
import { ConsoleState } from './console-state.js';

// zod probes for eval (its JIT) with Function(''): under the console's Content-Security-Policy that
// is a violation report on every load. It parses as well without.
zodConfig({ jitless: true });

export interface StartOptions {
  /** The daemon's WebSocket url (the page's origin). */
  url: string;
  /** The daemon's token; without one the page shows how to get a link and connects to nothing. */
  token: string | undefined;
  /** Where new sessions start by default (from the link). */
  cwd: string | undefined;
  /** The socket the entry opened to `url`, handed to the client as its first. */
  firstSocket: WebSocket | undefined;
}

export async function start({ url, token, cwd, firstSocket }: StartOptions): Promise<void> {
  const state = token ? new ConsoleState(url, token, cwd, handingOver(firstSocket)) : undefined;
  if (state) {
    state.start();
    const route = parseRoute(window.location.hash);
    // The session page takes this same model (ConsoleState.session keeps one per session).
    if (route.page === 'session') state.session(route.sessionId);
  }
  const ui = await import('../ui/mount.js');
  ui.mount(document.getElementById('root') as HTMLElement, state);
}
