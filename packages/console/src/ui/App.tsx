// The console's frame: the sidebar (sessions, filters, pages), the connection banner, and the page
// the hash route names. Pages read the console state; they hold no protocol logic of their own.
import { useEffect, useState } from 'react';
import type { ConsoleState } from '../app/console-state.js';
import { ConversationsPage } from './ConversationsPage.js';
import { DoctorPage } from './DoctorPage.js';
import { navigate, useConsole, useRoute } from './hooks.js';
import { NewSessionPage } from './NewSessionPage.js';
import { SessionPage } from './SessionPage.js';
import { Sidebar } from './Sidebar.js';

export function App({ state }: { state: ConsoleState }) {
  useConsole(state);
  const route = useRoute();
  const [navOpen, setNavOpen] = useState(false);
  // A page change closes the drawer on narrow screens.
  const routeKey = JSON.stringify(route);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each route change
  useEffect(() => setNavOpen(false), [routeKey]);

  let page: React.ReactNode;
  switch (route.page) {
    case 'session':
      page = (
        <SessionPage key={route.sessionId} state={state} sessionId={route.sessionId} onMenu={() => setNavOpen(true)} />
      );
      break;
    case 'new':
      page = <NewSessionPage state={state} onMenu={() => setNavOpen(true)} />;
      break;
    case 'doctor':
      page = <DoctorPage state={state} onMenu={() => setNavOpen(true)} />;
      break;
    case 'conversations':
      page = <ConversationsPage state={state} harness={route.harness} onMenu={() => setNavOpen(true)} />;
      break;
    default:
      page = <Home state={state} onMenu={() => setNavOpen(true)} />;
  }
  return (
    <div className={`app${navOpen ? ' nav-open' : ''}`}>
      <Sidebar state={state} route={route} onClose={() => setNavOpen(false)} />
      <main className="main">
        <ConnectionBanner state={state} />
        {page}
      </main>
    </div>
  );
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

export function MenuButton({ onMenu }: { onMenu: () => void }) {
  return (
    <button type="button" className="button small menu-button" onClick={onMenu} aria-label="Open the session list">
      ☰
    </button>
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
