// The turn boundary of Pi `--mode rpc` and the turn's usage (the event translation is translate.ts).
//
// Turn boundary (Pi 0.73.1): every auto-retry attempt is a full agent run with its own agent_start /
// agent_end, and Pi decides whether to retry only AFTER it has written agent_end: it writes
// auto_retry_start (will retry) or auto_retry_end{success:false} (gave up) in the same synchronous
// step (agent-session.js _processAgentEvent), or nothing at all (not retryable / retry disabled).
// So agent_end only makes the end *pending*; the session then sends a barrier command (get_state).
// Pi reads that command only after the step that wrote agent_end has finished, so by the time its
// response arrives every retry decision for that agent_end has been read from stdout. `settleTurn`
// then emits the terminal if nothing reopened the turn. No timer is involved.
//
import type { ErrorInfo, EventPayload, TokenUsage } from '@reins/core';
import { isRecord } from '@reins/core';
import { count, piProviderError, shown, str } from './messages.js';
import type { PiTranslateState } from './translate.js';

export function lastAssistant(messages: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let at = messages.length - 1; at >= 0; at--) {
    const message = messages[at];
    if (isRecord(message) && message.role === 'assistant') return message;
  }
  return undefined;
}

export function onAgentEnd(state: PiTranslateState, messages: unknown): EventPayload[] {
  state.retrying = false;
  const last = lastAssistant(messages);
  const stopReason = str(last?.stopReason);
  if (stopReason === 'aborted' || (state.interruptRequested && stopReason === 'error')) {
    state.pendingEnd = { outcome: { status: 'cancelled' }, stopReason };
  } else if (stopReason === 'error') {
    state.pendingEnd = { outcome: { status: 'failed', error: piProviderError(last?.errorMessage) }, stopReason };
  } else {
    state.pendingEnd = { outcome: { status: 'completed' }, ...(stopReason ? { stopReason } : {}) };
  }
  return [];
}

export function onRetryEnd(
  state: PiTranslateState,
  success: boolean,
  attempt: unknown,
  finalError?: string,
): EventPayload[] {
  state.retrying = false;
  const attempts = count(attempt);
  if (success) {
    return [
      {
        type: 'notice',
        kind: 'retry',
        message: `Pi's retry succeeded (attempt ${shown(attempt)}).`,
        data: { attempt: count(attempt) ?? null },
      },
    ];
  }
  // Pi gave up (or the retry was cancelled): this is the real end of the turn, whatever was pending.
  const error = piProviderError(finalError);
  state.pendingEnd = state.interruptRequested
    ? { outcome: { status: 'cancelled' }, stopReason: 'aborted' }
    : {
        outcome: { status: 'failed', error: attempts !== undefined ? withAttempts(error, attempts) : error },
        stopReason: 'error',
      };
  return [
    {
      type: 'notice',
      kind: 'retry',
      message: `Pi stopped retrying after ${shown(attempt)} attempt(s): ${finalError ?? 'unknown error'}`,
      data: { attempt: count(attempt) ?? null },
    },
    ...settleTurn(state),
  ];
}

function withAttempts(error: ErrorInfo, attempts: number): ErrorInfo {
  return { ...error, data: { ...error.data, attempts } };
}

/** True while agent_end has been seen and the barrier has not settled it yet. */
export function isTurnEndPending(state: PiTranslateState): boolean {
  return state.pendingEnd !== undefined;
}

/** Emits the turn's terminal once the barrier confirmed that no retry follows (see header). */
export function settleTurn(state: PiTranslateState): EventPayload[] {
  const pending = state.pendingEnd;
  if (!pending) return [];
  state.pendingEnd = undefined;
  forgetOpenItems(state);
  const usage = currentUsage(state);
  return [
    { type: 'session.status', status: 'idle' },
    {
      type: 'turn.completed',
      outcome: pending.outcome,
      ...(usage ? { usage } : {}),
      ...(pending.stopReason ? { stopReason: pending.stopReason } : {}),
    },
  ];
}

/**
 * The turn is ending: the stream closes what it left open (docs/architecture/contract.md, one terminal per
 * turn), so a late frame about one of those items is no news (it becomes a duplicate passthrough).
 */
function forgetOpenItems(state: PiTranslateState): void {
  state.seen ??= new Map();
  const open = [
    ...state.tools.keys(),
    ...[...state.blocks.values()].map((block) => block.itemId),
    ...(state.openUserItem ? [state.openUserItem] : []),
    ...(state.openCompaction ? [state.openCompaction] : []),
  ];
  for (const id of open) state.seen.set(id, 'completed');
  state.tools.clear();
  state.toolOutput.clear();
  state.blocks.clear();
  state.openUserItem = undefined;
  state.openCompaction = undefined;
}

/** Ends a turn for a reason that is not a Pi frame (process exit, a rejected prompt). */
export function failTurn(state: PiTranslateState, error: ErrorInfo): EventPayload[] {
  state.pendingEnd = { outcome: { status: 'failed', error } };
  return settleTurn(state);
}

// ---- usage ----
function currentUsage(state: PiTranslateState) {
  if (!state.turnUsage && state.turnCost === undefined) return undefined;
  return {
    ...(state.turnUsage ? { turn: state.turnUsage } : {}),
    ...(state.turnCost !== undefined
      ? { costUsd: { amount: state.turnCost, currency: 'USD' as const, source: 'provider' as const } }
      : {}),
  };
}

export function addUsage(state: PiTranslateState, usage: unknown): EventPayload | undefined {
  if (!isRecord(usage)) return undefined;
  const turn: TokenUsage = { ...state.turnUsage };
  const sum = (key: keyof TokenUsage, value: unknown) => {
    const n = count(value);
    if (n !== undefined) turn[key] = (turn[key] ?? 0) + n;
  };
  sum('input', usage.input);
  sum('cachedInput', usage.cacheRead);
  sum('cacheWrite', usage.cacheWrite);
  sum('output', usage.output);
  sum('total', usage.totalTokens);
  state.turnUsage = turn;
  // Pi prices usage from its own model table (models.json `cost`) and reports it: source provider
  // (the harness reported it; derived is for Reins' own price table). A zero there means "no price
  // known", not "free", so a zero total is left absent.
  const cost = isRecord(usage.cost) ? count(usage.cost.total) : undefined;
  if (cost !== undefined && cost > 0) state.turnCost = (state.turnCost ?? 0) + cost;
  const used = count(usage.totalTokens);
  const window = count(state.contextWindow);
  return {
    type: 'usage.updated',
    turn,
    ...(used !== undefined || window !== undefined
      ? { context: { ...(used !== undefined ? { used } : {}), ...(window !== undefined ? { window } : {}) } }
      : {}),
    ...(state.turnCost !== undefined
      ? { costUsd: { amount: state.turnCost, currency: 'USD' as const, source: 'provider' as const } }
      : {}),
  };
}
