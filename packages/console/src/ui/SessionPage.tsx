// One session: its header (harness, state, model and effort, usage and context only where the
// harness reported them, fork / close / delete, the debug panel), the transcript (virtualized), the
// optimistic bubbles, and the composer. Everything it does goes through the console state.
import { EFFORT_LEVELS, type Effort, type ErrorInfo, type HarnessId, type ModelInfo } from '@reins/core';
import { Suspense, useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import { type ConsoleState, errorInfo } from '../app/console-state.js';
import { baseName, contextShare, cost, tokenSummary, tokens } from '../model/format.js';
import type { PendingMessage } from '../model/outbox.js';
import type { SessionSnapshot } from '../model/session-model.js';
import type { Row } from '../model/transcript.js';
import { Composer } from './Composer.js';
import { DaemonError, HarnessBadge, MenuButton, StatusPill } from './common.js';
import { navigate, useConsole, useDaemonCall } from './hooks.js';
import { DebugPanel } from './lazy-pages.js';
import { PendingBubble, type RowActions, RowActionsContext, RowView } from './Rows.js';
import { VirtualList } from './VirtualList.js';

type ListEntry = { type: 'row'; row: Row } | { type: 'pending'; message: PendingMessage };

const ESTIMATES: Record<string, number> = {
  user: 60,
  agent: 80,
  reasoning: 40,
  tool: 140,
  permission: 150,
  'turn-end': 32,
  session: 30,
  notice: 30,
  note: 30,
};

const entryKey = (entry: ListEntry) =>
  entry.type === 'row' ? entry.row.key : `pending:${entry.message.clientMessageId}`;
const entryEstimate = (entry: ListEntry) => (entry.type === 'row' ? (ESTIMATES[entry.row.kind] ?? 60) : 60);

export function SessionPage({
  state,
  sessionId,
  onMenu,
}: {
  state: ConsoleState;
  sessionId: string;
  onMenu: () => void;
}) {
  useConsole(state);
  const model = useMemo(() => state.session(sessionId), [state, sessionId]);
  const snapshot = useSyncExternalStore(model.subscribe, model.snapshot);
  const listing = state.directory.get(sessionId);
  const harness = listing?.harness;
  const [debug, setDebug] = useState(false);
  const [sentCount, setSentCount] = useState(0);
  const attachError = state.attachError(sessionId);

  const fetchNatives = useCallback(
    (afterSeq: number, limit: number) => state.nativeFrames(sessionId, afterSeq, limit),
    [state, sessionId],
  );

  const send = useCallback(
    (text: string, mode: 'queue' | 'steer') => {
      setSentCount((count) => count + 1);
      void state.send(sessionId, text, mode);
    },
    [state, sessionId],
  );
  const interrupt = useCallback(() => void state.interrupt(sessionId), [state, sessionId]);
  const actions = useMemo<RowActions>(
    () => ({
      harness: harness ?? '',
      ...(listing?.posture !== undefined ? { posture: listing.posture } : {}),
      respond: (requestId, decision) => void state.respond(sessionId, requestId, decision),
      revert: (turnId) => state.revert(sessionId, turnId),
      retry: (message) => {
        model.dismiss(message.clientMessageId);
        send(message.text, message.mode);
      },
      dismiss: (message) => model.dismiss(message.clientMessageId),
    }),
    [state, sessionId, model, send, harness, listing?.posture],
  );

  const entries = useMemo<ListEntry[]>(
    () => [
      ...snapshot.rows.map((row) => ({ type: 'row' as const, row })),
      ...snapshot.pending.map((message) => ({ type: 'pending' as const, message })),
    ],
    [snapshot.rows, snapshot.pending],
  );

  const turnsEnded = useMemo(() => snapshot.rows.filter((row) => row.kind === 'turn-end').length, [snapshot.rows]);
  // The daemon's state where only it knows (starting, dormant, closed, lost); else the harness's own
  // lifecycle signal from the events, which is fresher than the listing.
  const hosted = listing?.status;
  const status =
    hosted === 'dormant' || hosted === 'closed' || hosted === 'lost' || hosted === 'starting'
      ? hosted
      : (snapshot.facts.status ?? hosted ?? 'starting');
  const running = snapshot.runningTurnId !== undefined && status !== 'dormant' && status !== 'closed';
  const closed = status === 'closed' || status === 'lost' || snapshot.facts.closed !== undefined;
  const title =
    listing?.title ??
    snapshot.facts.title ??
    `${listing?.harness ?? 'Session'} in ${baseName(listing?.cwd ?? snapshot.facts.cwd ?? '')}`;

  return (
    <RowActionsContext.Provider value={actions}>
      <div className="topbar session-top" data-testid="session-header">
        <MenuButton onMenu={onMenu} />
        <h1 title={listing?.cwd}>{title}</h1>
        {listing ? <HarnessBadge harness={listing.harness} /> : null}
        <StatusPill status={status} />
        <span className="spacer" />
        <SessionActions
          state={state}
          sessionId={sessionId}
          closed={closed}
          debug={debug}
          onDebug={() => setDebug(!debug)}
        />
      </div>
      <div className="settings-bar">
        <SessionSettings state={state} sessionId={sessionId} harness={harness} snapshot={snapshot} disabled={closed} />
        <span className="spacer" />
        <UsageMeter snapshot={snapshot} />
        {(listing?.cwd ?? snapshot.facts.cwd) ? (
          <span className="cwd mono" title="Working directory">
            {listing?.cwd ?? snapshot.facts.cwd}
          </span>
        ) : null}
      </div>
      {attachError ? (
        <div className="banner error" role="alert">
          Cannot follow this session: {attachError.code}: {attachError.message}
        </div>
      ) : null}
      <div className="session-body">
        <div
          className="session-column"
          data-testid="transcript"
          data-turns-ended={turnsEnded}
          data-running={running}
          data-last-seq={snapshot.lastSeq}
        >
          {entries.length === 0 ? (
            <div className="welcome">
              <p className="lead">{snapshot.lastSeq === 0 ? 'Loading the session…' : 'Nothing to show yet.'}</p>
            </div>
          ) : (
            <VirtualList
              items={entries}
              keyOf={entryKey}
              estimate={entryEstimate}
              bottomSignal={sentCount}
              label="Transcript"
              render={(entry) =>
                entry.type === 'row' ? <RowView row={entry.row} /> : <PendingBubble message={entry.message} />
              }
            />
          )}
          <Composer
            running={running}
            disabledReason={closed ? 'This session is closed.' : undefined}
            hint={
              status === 'dormant'
                ? 'Dormant: the harness process is stopped; your next message resumes the conversation.'
                : undefined
            }
            waitingPermissions={snapshot.pendingPermissions.length}
            onSend={send}
            onInterrupt={interrupt}
          />
        </div>
        {debug ? (
          <Suspense fallback={null}>
            <DebugPanel model={model} snapshot={snapshot} fetchNatives={fetchNatives} onClose={() => setDebug(false)} />
          </Suspense>
        ) : null}
      </div>
    </RowActionsContext.Provider>
  );
}

function SessionSettings({
  state,
  sessionId,
  harness,
  snapshot,
  disabled,
}: {
  state: ConsoleState;
  sessionId: string;
  harness: HarnessId | undefined;
  snapshot: SessionSnapshot;
  disabled: boolean;
}) {
  const listing = state.directory.get(sessionId);
  const api = state.api;
  const models = useDaemonCall<ModelInfo[]>(
    api && harness ? () => api.models(harness) : undefined,
    `models:${harness}`,
  );
  const current = snapshot.facts.model ?? listing?.model ?? '';
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const effort = (snapshot.facts.effort ?? listing?.effort ?? '') as string;
  const modelError: ErrorInfo | undefined = models.state === 'failed' ? models.error : undefined;
  const listId = `models-${sessionId}`;
  const value = draft ?? current;
  const submit = () => {
    const next = value.trim();
    if (next && next !== current) void state.setModel(sessionId, next);
    setDraft(undefined);
  };
  return (
    <div className="group">
      <label className="setting">
        Model
        <input
          className="field mono"
          list={listId}
          value={value}
          placeholder="default"
          disabled={disabled}
          data-testid="model-input"
          title={modelError ? `harness/models: ${modelError.code}: ${modelError.message}` : 'Switch the model'}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') submit();
            if (event.key === 'Escape') setDraft(undefined);
          }}
          onBlur={() => setDraft(undefined)}
        />
        {models.state === 'done' ? (
          <datalist id={listId}>
            {models.value.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.displayName ?? entry.id}
              </option>
            ))}
          </datalist>
        ) : null}
      </label>
      {draft !== undefined && draft.trim() !== current ? (
        <button
          type="button"
          className="button small"
          onMouseDown={(event) => event.preventDefault()}
          onClick={submit}
          data-testid="model-apply"
        >
          Switch
        </button>
      ) : null}
      <label className="setting">
        Effort
        <select
          className="field"
          value={effort}
          disabled={disabled}
          data-testid="effort-select"
          onChange={(event) => void state.setEffort(sessionId, event.target.value as Effort)}
        >
          {effort === '' ? <option value="">default</option> : null}
          {EFFORT_LEVELS.map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** Context, tokens and cost: each shown only when the harness reported it (absent, never zero). */
function UsageMeter({ snapshot }: { snapshot: SessionSnapshot }) {
  const { usage } = snapshot;
  const share = contextShare(usage.context);
  const total = tokenSummary(usage.total);
  const { rateLimit } = snapshot;
  if (share === undefined && !total && !usage.costUsd && !rateLimit) return null;
  return (
    <div className="meter" data-testid="usage">
      {share !== undefined && usage.context?.used !== undefined && usage.context.window !== undefined ? (
        <span title={`${usage.context.used} of ${usage.context.window} tokens of context in use`}>
          <span className="bar" aria-hidden="true">
            <span style={{ width: `${Math.round(share * 100)}%` }} />
          </span>{' '}
          {tokens(usage.context.used)}/{tokens(usage.context.window)}
        </span>
      ) : null}
      {total ? <span title="Session total, as the harness reported it">{total}</span> : null}
      {usage.costUsd ? <span>{cost(usage.costUsd)}</span> : null}
      {rateLimit ? (
        <span data-testid="rate-limit" title={JSON.stringify(rateLimit.data ?? {}, null, 1)}>
          {rateLimit.message}
        </span>
      ) : null}
    </div>
  );
}

function SessionActions({
  state,
  sessionId,
  closed,
  debug,
  onDebug,
}: {
  state: ConsoleState;
  sessionId: string;
  closed: boolean;
  debug: boolean;
  onDebug: () => void;
}) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState<ErrorInfo | undefined>(undefined);
  return (
    <div className="group">
      <button
        type="button"
        className="button small"
        onClick={async () => {
          const forked = await state.fork(sessionId);
          if (forked) navigate({ page: 'session', sessionId: forked });
        }}
        data-testid="fork"
      >
        Fork
      </button>
      {!closed ? (
        <button type="button" className="button small" onClick={() => void state.close(sessionId)} data-testid="close">
          Close
        </button>
      ) : null}
      <button
        type="button"
        className="button small danger"
        title={deleteError ? `${deleteError.code}: ${deleteError.message}` : 'Forget this session and its whole log'}
        onClick={async () => {
          if (!confirmDelete) {
            setConfirmDelete(true);
            return;
          }
          try {
            await state.delete(sessionId);
            navigate({ page: 'home' });
          } catch (error) {
            setDeleteError(errorInfo(error));
            setConfirmDelete(false);
          }
        }}
        onBlur={() => setConfirmDelete(false)}
        data-testid="delete"
      >
        {confirmDelete ? 'Delete for good?' : 'Delete'}
      </button>
      <button type="button" className="button small" aria-pressed={debug} onClick={onDebug} data-testid="debug-toggle">
        Raw frames
      </button>
      {deleteError ? <DaemonError error={deleteError} method="session/delete" /> : null}
    </div>
  );
}
