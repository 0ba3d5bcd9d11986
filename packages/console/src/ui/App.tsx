// The console's frame: the sidebar (sessions, filters, pages), the connection banner, and the page
// the hash route names. Pages read the console state; they hold no protocol logic of their own.
import { type RefObject, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import type { ConsoleState } from '../app/console-state.js';
import { MenuButton } from './common.js';
import { navigate, useConsole, useRoute } from './hooks.js';
import { ConversationsPage, DoctorPage, NewSessionPage } from './lazy-pages.js';
import { SessionPage } from './SessionPage.js';
import { Sidebar } from './Sidebar.js';

export function App({ state }: { state: ConsoleState }) {
  useConsole(state);
  const route = useRoute();
  const [navOpen, setNavOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(true);
  // A route change closes the drawer on narrow screens. Another page (or session) takes the focus
  // to that page (its [data-autofocus] control, else its heading), so a keyboard user does not
  // start over from the top of the document; a change within a page (the conversations' harness
  // picker) leaves it on the control in use, and the page the console opens on where the browser put it.
  const routeKey = JSON.stringify(route);
  const pageKey = route.page === 'session' ? `session:${route.sessionId}` : route.page;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each route change
  useEffect(() => setNavOpen(false), [routeKey]);
  const openNav = useCallback(() => setNavOpen(true), []);
  // Closing the drawer from the keyboard (Esc, its ✕) hands the focus back to the menu button.
  const closeNav = useCallback((returnFocus: boolean) => {
    setNavOpen(false);
    if (returnFocus) requestAnimationFrame(() => main.current?.querySelector<HTMLElement>('.menu-button')?.focus());
  }, []);

  let page: React.ReactNode;
  switch (route.page) {
    case 'session':
      page = <SessionPage key={route.sessionId} state={state} sessionId={route.sessionId} onMenu={openNav} />;
      break;
    case 'new':
      page = <NewSessionPage state={state} onMenu={openNav} />;
      break;
    case 'doctor':
      page = <DoctorPage state={state} onMenu={openNav} />;
      break;
    case 'conversations':
      page = <ConversationsPage state={state} harness={route.harness} onMenu={openNav} />;
      break;
    default:
      page = <Home state={state} onMenu={openNav} />;
  }
  return (
    <div className={`app${navOpen ? ' nav-open' : ''}`}>
      <button type="button" className="skip-link" onClick={() => focusPage(main.current)}>
        Skip to the page
      </button>
      <Sidebar state={state} route={route} open={navOpen} onClose={closeNav} />
      <main className="main" ref={main}>
        <ConnectionBanner state={state} />
        {/* A page in a chunk not loaded yet shows the fallback; the focus moves once it is there. */}
        <Suspense fallback={<PageLoading />}>
          {page}
          <FocusOnArrival key={pageKey} main={main} first={firstRoute} />
        </Suspense>
      </main>
    </div>
  );
}

/**
 * Mounted (by its key) with each page, after it in its Suspense boundary, so its effect runs when the
 * page is on screen, its chunk loaded: the page the console opens on keeps the focus where the
 * browser put it, every later one takes it.
 */
function FocusOnArrival({ main, first }: { main: RefObject<HTMLElement | null>; first: RefObject<boolean> }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per page (the key remounts it)
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    focusPage(main.current);
  }, []);
  return null;
}

function PageLoading() {
  return (
    <div className="welcome" role="status">
      Loading…
    </div>
  );
}

/**
 * Focuses the page's [data-autofocus] control, else its first heading (focusable by script only).
 * On a touch screen the heading: focusing a text field there would open the on-screen keyboard.
 */
function focusPage(main: HTMLElement | null): void {
  if (!main) return;
  const touch = window.matchMedia('(pointer: coarse)').matches;
  const control = touch ? null : main.querySelector<HTMLElement>('[data-autofocus]:not(:disabled)');
  const heading = main.querySelector<HTMLElement>('h1');
  const target = control ?? heading;
  if (!target) return;
  if (target === heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  target.focus();
}

function ConnectionBanner({ state }: { state: ConsoleState }) {
  const connection = state.connection.state;
  if (connection.status === 'open' || connection.status === 'disposed') return null;
  if (connection.status === 'connecting') {
    return (
      <div className="banner warn" role="status">
        Connecting to the Reins daemon…
      </div>
    );
  }
  if (connection.status === 'refused') {
    return (
      <div className="banner error" role="alert" data-testid="connection-refused">
        The daemon refused this page's token ({connection.error.code}): it has probably restarted, which gives it a new
        token. Run <code>reins console</code> for a fresh link.
      </div>
    );
  }
  return (
    <div className="banner warn" role="status" data-testid="reconnecting">
      Connection to the daemon lost ({connection.error.message}). Reconnecting (attempt {connection.attempt})… Sessions
      keep running in the daemon and continue here where they left off.
    </div>
  );
}

function Home({ state, onMenu }: { state: ConsoleState; onMenu: () => void }) {
  const count = state.directory.all().length;
  return (
    <>
      <div className="topbar">
        <MenuButton onMenu={onMenu} />
        <h1>Reins console</h1>
      </div>
      <div className="welcome">
        <div className="panel">
          <h1>Drive every coding agent from one place</h1>
          <p className="lead">
            {count > 0
              ? `The daemon holds ${count} session${count === 1 ? '' : 's'}: pick one on the left, or start a new one.`
              : 'No sessions yet. Start one with any harness installed on this machine.'}
          </p>
          <div className="button-row">
            <button type="button" className="button primary" onClick={() => navigate({ page: 'new' })}>
              New session
            </button>
            <button type="button" className="button" onClick={() => navigate({ page: 'doctor' })}>
              Doctor
            </button>
          </div>
        </div>
      </div>
    </>
  );
}

/** Shown when the page was opened without the daemon's token. */
export function NoToken() {
  return (
    <div className="welcome full">
      <div className="panel">
        <h1>Open the console from the command line</h1>
        <p className="lead">
          This page needs the daemon's token, which <code>reins console</code> puts in the link it prints (after the{' '}
          <code>#</code>, so it never reaches a server log). Run:
        </p>
        <pre className="mono">reins console</pre>
      </div>
    </div>
  );
}
