// The conversations each harness keeps on disk itself (harness/sessions), not only the daemon's:
// pick one to continue it in a new daemon session (session/create with resume, which fails with
// resume_failed rather than silently starting afresh).
import { type HarnessId, isHarnessId, type SessionSummary } from '@reins/core';
import { useState } from 'react';
import { type ConsoleState, errorInfo } from '../app/console-state.js';
import { relativeTime } from '../model/format.js';
import { DaemonError, MenuButton } from './common.js';
import { navigate, useConsole, useDaemonCall, useNow } from './hooks.js';

export function ConversationsPage({
  state,
  harness,
  onMenu,
}: {
  state: ConsoleState;
  harness?: string;
  onMenu: () => void;
}) {
  useConsole(state);
  const api = state.api;
  const offered = api?.info.harnesses ?? [];
  const chosen: HarnessId | undefined = harness !== undefined && isHarnessId(harness) ? harness : offered[0];
  const [cwd, setCwd] = useState('');
  const [query, setQuery] = useState(0);
  const now = useNow();
  const conversations = useDaemonCall<SessionSummary[]>(
    api && chosen ? () => api.harnessSessions(chosen, cwd.trim() || undefined) : undefined,
    `sessions:${chosen}:${query}`,
  );
  const [continuing, setContinuing] = useState<string | undefined>(undefined);
  const [error, setError] = useState<ReturnType<typeof errorInfo> | undefined>(undefined);

  const resume = async (summary: SessionSummary) => {
    if (!chosen) return;
    const folder = summary.cwd ?? cwd.trim();
    if (!folder) {
      setError({ code: 'invalid_input', message: 'This conversation has no working directory: give one above.' });
      return;
    }
    setContinuing(summary.nativeSessionId);
    setError(undefined);
    try {
      const sessionId = await state.createSession(chosen, {
        cwd: folder,
        resume: { nativeSessionId: summary.nativeSessionId },
      });
      navigate({ page: 'session', sessionId });
    } catch (caught) {
      setError(errorInfo(caught));
    } finally {
      setContinuing(undefined);
    }
  };

  return (
    <>
      <div className="topbar">
        <MenuButton onMenu={onMenu} />
        <h1>Conversations on disk</h1>
      </div>
      <div className="page">
        <div className="page-inner">
          <p className="lead">
            What each harness keeps itself, also from outside Reins. Continue one in a new session.
          </p>
          <div className="panel form-grid">
            <label htmlFor="conversations-harness">Harness</label>
            <select
              id="conversations-harness"
              className="field"
              value={chosen ?? ''}
              onChange={(event) => navigate({ page: 'conversations', harness: event.target.value })}
            >
              {offered.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
            <label htmlFor="conversations-cwd">In folder</label>
            <div className="button-row left">
              <input
                id="conversations-cwd"
                className="field mono"
                value={cwd}
                placeholder="any folder"
                onChange={(event) => setCwd(event.target.value)}
                onKeyDown={(event) => event.key === 'Enter' && setQuery(query + 1)}
              />
              <button type="button" className="button" onClick={() => setQuery(query + 1)}>
                List
              </button>
            </div>
          </div>
          <h2>Conversations</h2>
          {conversations.state === 'loading' ? <div className="empty">Asking {chosen}…</div> : null}
          {conversations.state === 'failed' ? (
            <DaemonError error={conversations.error} method="harness/sessions" />
          ) : null}
          {conversations.state === 'done' && conversations.value.length === 0 ? (
            <div className="empty">
              {chosen} keeps no conversations{cwd ? ' in that folder' : ''}.
            </div>
          ) : null}
          {conversations.state === 'done' && conversations.value.length > 0 ? (
            <table className="table">
              <thead>
                <tr>
                  <th>Title</th>
                  <th>Folder</th>
                  <th>Last active</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {conversations.value.map((summary) => (
                  <tr key={summary.nativeSessionId}>
                    <td>{summary.title ?? <code>{summary.nativeSessionId}</code>}</td>
                    <td className="mono">{summary.cwd ?? '—'}</td>
                    <td>{summary.updatedAt ? relativeTime(summary.updatedAt, now) : '—'}</td>
                    <td>
                      <button
                        type="button"
                        className="button small"
                        disabled={continuing !== undefined}
                        onClick={() => resume(summary)}
                      >
                        {continuing === summary.nativeSessionId ? 'Resuming…' : 'Continue'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {error ? <DaemonError error={error} method="session/create" /> : null}
        </div>
      </div>
    </>
  );
}
