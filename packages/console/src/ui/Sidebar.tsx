// The session list: every session the daemon holds with its live state (status/snapshot and
// sessions/changed keep it current), filtered by harness, workspace and words; and the other pages.
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import type { ConsoleState } from '../app/console-state.js';
import { baseName, relativeTime } from '../model/format.js';
import type { Route } from '../model/route.js';
import { baseTitle, distinctTitles } from '../model/session-titles.js';
import { StatusDot } from './common.js';
import { navigate, useNow } from './hooks.js';

/** Up and Down (Home, End) move between the sessions of the list; Tab leaves it. */
function moveInList(event: KeyboardEvent<HTMLUListElement>): void {
  const keys = ['ArrowDown', 'ArrowUp', 'Home', 'End'];
  if (!keys.includes(event.key)) return;
  const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>('.session-item'));
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (items.length === 0 || at < 0) return;
  event.preventDefault();
  const next =
    event.key === 'Home'
      ? 0
      : event.key === 'End'
        ? items.length - 1
        : Math.min(items.length - 1, Math.max(0, at + (event.key === 'ArrowDown' ? 1 : -1)));
  items[next]?.focus();
}

export function Sidebar({
  state,
  route,
  open,
  onClose,
}: {
  state: ConsoleState;
  route: Route;
  /** The drawer is open (narrow windows): focus goes into it, Esc closes it. */
  open: boolean;
  onClose: (returnFocus: boolean) => void;
}) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) closeButton.current?.focus();
  }, [open]);
  const [harness, setHarness] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [text, setText] = useState('');
  const now = useNow();
  const sessions = state.directory.filtered({ harness, workspace, text });
  const titles = distinctTitles(state.directory.all());
  const version = state.api?.info.reinsVersion;
  const current = route.page === 'session' ? route.sessionId : undefined;
  return (
    <nav
      className="sidebar"
      aria-label="Sessions"
      onKeyDown={(event) => {
        if (open && event.key === 'Escape') {
          // Before the composer's Esc (interrupt), which skips an event already handled.
          event.preventDefault();
          onClose(true);
        }
      }}
    >
      <div className="brand">
        <img src="/favicon.svg" alt="" />
        Reins {version ? <span className="version">{version}</span> : null}
        <button
          type="button"
          className="button small menu-button"
          ref={closeButton}
          onClick={() => onClose(true)}
          aria-label="Close the session list"
        >
          ✕
        </button>
      </div>
      <div className="sidebar-actions">
        <button type="button" className="button primary grow" onClick={() => navigate({ page: 'new' })}>
          + New session
        </button>
      </div>
      <div className="filters">
        <select
          className="field"
          aria-label="Filter by harness"
          value={harness}
          onChange={(e) => setHarness(e.target.value)}
        >
          <option value="">All harnesses</option>
          {state.directory.harnesses().map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <select
          className="field"
          aria-label="Filter by workspace"
          value={workspace}
          onChange={(e) => setWorkspace(e.target.value)}
        >
          <option value="">All workspaces</option>
          {state.directory.workspaces().map((cwd) => (
            <option key={cwd} value={cwd} title={cwd}>
              {baseName(cwd)}
            </option>
          ))}
        </select>
        <input
          className="field"
          type="search"
          placeholder="Search sessions"
          aria-label="Search sessions"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <ul className="session-list" data-testid="session-list" onKeyDown={moveInList}>
        {sessions.length === 0 ? (
          <li className="empty">{state.directory.all().length === 0 ? 'No sessions yet.' : 'No session matches.'}</li>
        ) : (
          sessions.map((session) => (
            <li key={session.sessionId}>
              <button
                type="button"
                title={`${titles.get(session.sessionId) ?? baseTitle(session)}\n${session.harness} · ${session.cwd}`}
                className="session-item"
                aria-current={session.sessionId === current ? 'page' : undefined}
                data-session-id={session.sessionId}
                data-status={session.status}
                onClick={() => navigate({ page: 'session', sessionId: session.sessionId })}
              >
                <span className="title">
                  <StatusDot status={session.status} />
                  <span className="text">{titles.get(session.sessionId) ?? baseTitle(session)}</span>
                </span>
                <span className="meta">
                  <span>{session.harness}</span>·<span title={session.cwd}>{baseName(session.cwd)}</span>
                  {session.model ? (
                    <>
                      ·<span>{session.model}</span>
                    </>
                  ) : null}
                  ·<span>{session.status === 'running' ? 'running' : relativeTime(session.updatedAt, now)}</span>
                </span>
              </button>
            </li>
          ))
        )}
      </ul>
      <div className="sidebar-nav">
        <button
          type="button"
          className="nav-link"
          aria-current={route.page === 'conversations' ? 'page' : undefined}
          onClick={() => navigate({ page: 'conversations' })}
        >
          Conversations on disk
        </button>
        <button
          type="button"
          className="nav-link"
          aria-current={route.page === 'doctor' ? 'page' : undefined}
          onClick={() => navigate({ page: 'doctor' })}
        >
          Doctor
        </button>
      </div>
    </nav>
  );
}
