// One transcript row each: the user's bubble, agent text (streaming), reasoning (collapsible), tool
// cards, plans, compaction with the harness's own numbers, notices, errors, permission requests to
// approve or deny, a turn's end (its outcome, and usage only where the harness reported it), the
// session's own lines. Rows are memoized: the reducer gives a changed row a new object.
import type { PermissionDecision, PermissionOption, Posture } from '@reins/core';
import { createContext, memo, useContext, useState } from 'react';
import { cost, tokenSummary } from '../model/format.js';
import type { PendingMessage } from '../model/outbox.js';
import type { PermissionRow, Row, ToolRow, TurnEndRow, UserRow } from '../model/transcript.js';
import { CheckpointCard } from './CheckpointCard.js';
import { Markdown } from './Markdown.js';
import { commandLine, ToolCard } from './ToolCard.js';

export interface RowActions {
  harness: string;
  /** The session's posture, from the daemon's listing (absent: bypass or not known yet). */
  posture?: Posture;
  respond(requestId: string, decision: PermissionDecision): void;
  /** Undo a checkpointed turn (session/revert); resolves once the answer is shown. */
  revert(turnId: string): Promise<void>;
  retry(message: PendingMessage): void;
  dismiss(message: PendingMessage): void;
}

export const RowActionsContext = createContext<RowActions>({
  harness: '',
  respond() {},
  revert: async () => {},
  retry() {},
  dismiss() {},
});

export const RowView = memo(function RowView({ row }: { row: Row }) {
  const { posture, revert } = useContext(RowActionsContext);
  switch (row.kind) {
    case 'user':
      return <UserBubble row={row} />;
    case 'agent':
      return <AgentText text={row.item.text} streaming={row.item.status === 'running'} />;
    case 'reasoning':
      return (
        <div className="row">
          <details className="reasoning" open={row.item.status === 'running'}>
            <summary>
              {row.item.status === 'running' ? 'Thinking…' : 'Thought'}
              {row.item.summary ? ` · ${row.item.summary}` : ''}
            </summary>
            <div className="body">{row.item.text || row.item.summary || ''}</div>
          </details>
        </div>
      );
    case 'tool':
      return <ToolCard row={row} renderLane={renderLane} posture={posture} />;
    case 'plan':
      return (
        <div className="row">
          <div className="plan" data-testid="plan">
            <strong>Plan</strong>
            <ol>
              {row.item.entries.map((entry, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: plan entries are positional
                <li key={index} className={entry.status}>
                  {entry.status === 'completed' ? '✓ ' : entry.status === 'in_progress' ? '▸ ' : ''}
                  {entry.text}
                </li>
              ))}
            </ol>
          </div>
        </div>
      );
    case 'compaction': {
      const { trigger, preTokens, postTokens } = row.item;
      const numbers =
        preTokens !== undefined || postTokens !== undefined
          ? ` · ${preTokens ?? '?'} → ${postTokens ?? '?'} tokens (as the harness reported)`
          : '';
      return (
        <div className="row system-row" data-testid="compaction">
          <span className="text">
            Context compacted{trigger ? ` (${trigger})` : ''}
            {numbers}
          </span>
        </div>
      );
    }
    case 'notice':
      return (
        <div className="row">
          <div className={`notice-row ${row.notice}`} data-testid="notice">
            <span className="kind">{row.notice.replace('_', ' ')}</span>
            <span>
              {row.message}
              {row.count > 1 ? ` (×${row.count})` : ''}
            </span>
          </div>
        </div>
      );
    case 'error':
      return (
        <div className="row">
          <div className="error-card" role="alert" data-testid="error-row">
            <span className="code">{row.error.code}</span>
            {row.error.message}
            {row.fatal ? ' (the session cannot go on)' : ''}
          </div>
        </div>
      );
    case 'permission':
      return <PermissionCard row={row} />;
    case 'turn-end':
      return <TurnEnd row={row} />;
    case 'session':
      return (
        <div className="row system-row" data-testid={`session-${row.event}`}>
          <span className="text">
            {row.text}
            {row.error ? ` ${row.error.code}: ${row.error.message}` : ''}
          </span>
        </div>
      );
    case 'checkpoint':
      return <CheckpointCard row={row} revert={revert} />;
    case 'note':
      return (
        <div className="row">
          <div className={`note-row ${row.tone}`} data-testid="note">
            {row.text}
          </div>
        </div>
      );
  }
});

function renderLane(rows: ToolRow['lane']) {
  return rows.map((row) => <RowView key={row.key} row={row} />);
}

function UserBubble({ row }: { row: UserRow }) {
  const { item } = row;
  if (item.origin === 'synthetic') return null;
  if (item.origin === 'notification') {
    return (
      <div className="row notification-row" data-testid="notification">
        {item.text}
      </div>
    );
  }
  return (
    <div className="row user-row">
      <div className="bubble" data-testid="user-bubble" data-client-message-id={item.clientMessageId}>
        {item.text}
      </div>
      {row.delivery === 'queued' || row.delivery === 'steered' || item.replay ? (
        <div className="bubble-meta">
          {row.delivery === 'queued' ? <span>queued: ran after the turn before it</span> : null}
          {row.delivery === 'steered' ? <span>steered into the running turn</span> : null}
          {item.replay ? <span>from the harness's history</span> : null}
        </div>
      ) : null}
    </div>
  );
}

export function PendingBubble({ message }: { message: PendingMessage }) {
  const actions = useContext(RowActionsContext);
  let meta: string;
  if (message.state === 'failed') meta = '';
  else if (message.delivery === 'queued') meta = 'queued: runs after the current turn';
  else if (message.delivery === 'steered') meta = 'steered into the running turn';
  else if (message.state === 'sent') meta = 'sent';
  else meta = message.mode === 'steer' ? 'steering…' : 'sending…';
  return (
    <div className="row user-row">
      <div
        className={`bubble pending${message.state === 'failed' ? ' failed' : ''}`}
        data-testid="pending-bubble"
        data-state={message.state}
      >
        {message.text}
      </div>
      {message.state === 'failed' && message.error ? (
        <div className="bubble-meta error" role="alert">
          <span>
            Not sent: {message.error.code}: {message.error.message}
          </span>
          <button type="button" className="button small" onClick={() => actions.retry(message)}>
            Retry
          </button>
          <button type="button" className="button small" onClick={() => actions.dismiss(message)}>
            Dismiss
          </button>
        </div>
      ) : (
        <div className="bubble-meta">{meta}</div>
      )}
    </div>
  );
}

function AgentText({ text, streaming }: { text: string; streaming: boolean }) {
  const { harness } = useContext(RowActionsContext);
  return (
    <div className="row agent-row">
      <div className="avatar" aria-hidden="true">
        {(harness[0] ?? 'A').toUpperCase()}
      </div>
      <div className={`agent-text${streaming ? ' cursor' : ''}`} data-testid="agent-text" data-streaming={streaming}>
        <Markdown text={text} />
      </div>
    </div>
  );
}

function decisionOf(option: PermissionOption): PermissionDecision {
  return {
    behavior: option.kind.startsWith('allow') ? 'allow' : 'deny',
    scope: option.kind.endsWith('always') ? 'session' : 'once',
    optionId: option.id,
  };
}

function describeRequest(row: PermissionRow): string {
  const input = row.input as Record<string, unknown> | undefined;
  if (row.tool.kind === 'command') {
    return commandLine({ kind: 'tool_call', id: '', status: 'running', tool: row.tool, input: row.input });
  }
  const path = input && (input.file_path ?? input.path);
  if (typeof path === 'string') return path;
  return row.tool.title ?? row.tool.name;
}

function PermissionCard({ row }: { row: PermissionRow }) {
  const actions = useContext(RowActionsContext);
  const [busy, setBusy] = useState(false);
  const respond = (decision: PermissionDecision) => {
    setBusy(true);
    actions.respond(row.requestId, decision);
  };
  const resolved = row.resolved;
  return (
    <div className="row">
      <div
        className={`permission-card${resolved ? ' resolved' : ''}`}
        data-testid="permission"
        data-request-id={row.requestId}
        data-resolved={resolved ? resolved.decision.behavior : 'pending'}
      >
        <div className="ask">
          {resolved ? 'Asked to use' : 'Wants to use'} {row.tool.name}: <code>{describeRequest(row)}</code>
        </div>
        {row.input !== undefined ? <pre className="mono">{JSON.stringify(row.input, null, 2)}</pre> : null}
        {resolved ? (
          <div className="decided">
            {resolved.decision.behavior === 'allow' ? 'Approved' : 'Denied'}
            {resolved.decision.scope === 'session' ? ' for the session' : ''}
            {resolved.by === 'client'
              ? ''
              : resolved.by === 'timeout'
                ? ' (no answer in time)'
                : ' (withdrawn by the harness)'}
          </div>
        ) : (
          <div className="actions">
            {row.options.length > 0 ? (
              row.options.map((option) => (
                <button
                  key={option.id}
                  type="button"
                  disabled={busy}
                  className={`button ${option.kind.startsWith('allow') ? 'approve' : 'deny'}`}
                  onClick={() => respond(decisionOf(option))}
                >
                  {option.label}
                </button>
              ))
            ) : (
              <>
                <button
                  type="button"
                  className="button approve"
                  disabled={busy}
                  onClick={() => respond({ behavior: 'allow' })}
                >
                  Approve
                </button>
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() => respond({ behavior: 'allow', scope: 'session' })}
                >
                  Approve for this session
                </button>
                <button
                  type="button"
                  className="button deny"
                  disabled={busy}
                  onClick={() => respond({ behavior: 'deny' })}
                >
                  Deny
                </button>
              </>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

function TurnEnd({ row }: { row: TurnEndRow }) {
  const { outcome } = row;
  if (outcome.status === 'failed') {
    return (
      <div className="row">
        <div className="error-card" role="alert" data-testid="turn-failed">
          <span className="code">{outcome.error.code}</span>
          The turn failed: {outcome.error.message}
        </div>
      </div>
    );
  }
  const parts: string[] = [];
  const tokens = tokenSummary(row.usage?.turn);
  if (tokens) parts.push(tokens);
  if (row.usage?.costUsd) parts.push(cost(row.usage.costUsd));
  return (
    <div className="row">
      <div className={`turn-end ${outcome.status}`} data-testid="turn-end" data-outcome={outcome.status}>
        <span>{outcome.status === 'cancelled' ? '■ Interrupted' : '✓ Done'}</span>
        {parts.map((part) => (
          <span key={part}>{part}</span>
        ))}
      </div>
    </div>
  );
}
