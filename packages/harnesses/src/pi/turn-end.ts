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
import type { ErrorInfo, EventPayload, TokenUsage, Usage } from '@reins/core';
import { isRecord } from '@reins/core';
import { count, piProviderError, shown, str } from './messages.js';
import { PayloadList, type PayloadSink } from './sink.js';
import type { PiTranslateState } from './state.js';

export function lastAssistant(messages: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let at = messages.length - 1; at >= 0; at--) {
    const message = messages[at];
    if (isRecord(message) && message.role === 'assistant') return message;
  }
  return undefined;
}

/** agent_end: the turn's end is pending until the barrier (see header); nothing to emit yet. */
export function onAgentEnd(state: PiTranslateState, messages: unknown): void {
  state.retrying = false;
  const last = lastAssistant(messages);
  const stopReason = str(last?.stopReason);
  if (stopReason === 'aborted' || (state.interruptRequested && stopReason === 'error')) {
    state.pendingEnd = { outcome: { status: 'cancelled' }, stopReason };
  } else if (stopReason === 'error') {
    state.pendingEnd = { outcome: { status: 'failed', error: piProviderError(last?.errorMessage) }, stopReason };
  } else {
    state.pendingEnd = { outcome: { status: 'completed' } };
    if (stopReason) state.pendingEnd.stopReason = stopReason;
  }
}

export function onRetryEnd(
  state: PiTranslateState,
  success: boolean,
  attempt: unknown,
  finalError: string | undefined,
  sink: PayloadSink,
): void {
  state.retrying = false;
  const attempts = count(attempt);
  if (success) {
    sink.emit({
      type: 'notice',
      kind: 'retry',
      message: `Pi's retry succeeded (attempt ${shown(attempt)}).`,
      data: { attempt: count(attempt) ?? null },
    });
    return;
  }
  // Pi gave up (or the retry was cancelled): this is the real end of the turn, whatever was pending.
  const error = piProviderError(finalError);
  state.pendingEnd = state.interruptRequested
    ? { outcome: { status: 'cancelled' }, stopReason: 'aborted' }
    : {
        outcome: { status: 'failed', error: attempts !== undefined ? withAttempts(error, attempts) : error },
        stopReason: 'error',
      };
  sink.emit({
    type: 'notice',
    kind: 'retry',
    message: `Pi stopped retrying after ${shown(attempt)} attempt(s): ${finalError ?? 'unknown error'}`,
    data: { attempt: count(attempt) ?? null },
  });
  settleTurnInto(state, sink);
}

/** The error with `attempts` in its data: copies and assignments, as `{ ...error, data: { ...data, attempts } }` ordered them. */
function withAttempts(error: ErrorInfo, attempts: number): ErrorInfo {
  const data: Record<string, unknown> = Object.assign({}, error.data);
  data.attempts = attempts;
  const copy: ErrorInfo = Object.assign({}, error);
  copy.data = data;
  return copy;
}

/** True while agent_end has been seen and the barrier has not settled it yet. */
export function isTurnEndPending(state: PiTranslateState): boolean {
  return state.pendingEnd !== undefined;
}

/** The turn's terminal once the barrier confirmed that no retry follows (see header), as a list. */
export function settleTurn(state: PiTranslateState): EventPayload[] {
  const list = new PayloadList();
  settleTurnInto(state, list);
  return list.payloads;
}

/**
 * settleTurn into `sink`. The payloads are built key by key (outcome, usage, stopReason), not by spreads
 * into literals: on Node 20 those take a slow copy (bench/README.md).
 */
export function settleTurnInto(state: PiTranslateState, sink: PayloadSink): void {
  const pending = state.pendingEnd;
  if (!pending) return;
  state.pendingEnd = undefined;
  forgetOpenItems(state);
  const completed: EventPayload & { type: 'turn.completed' } = { type: 'turn.completed', outcome: pending.outcome };
  const usage = currentUsage(state);
  if (usage) completed.usage = usage;
  if (pending.stopReason) completed.stopReason = pending.stopReason;
  sink.emit({ type: 'session.status', status: 'idle' });
  sink.emit(completed);
}

/**
 * The turn is ending: the stream closes what it left open (docs/architecture/contract.md, one terminal per
 * turn), so a late frame about one of those items is no news (it becomes a duplicate passthrough).
 */
function forgetOpenItems(state: PiTranslateState): void {
  state.seen ??= new Map();
  const seen = state.seen;
  if (state.tools.size > 0) for (const id of state.tools.keys()) seen.set(id, 'completed');
  if (state.blocks.size > 0) for (const block of state.blocks.values()) seen.set(block.itemId, 'completed');
  if (state.openUserItem) seen.set(state.openUserItem, 'completed');
  if (state.openCompaction) seen.set(state.openCompaction, 'completed');
  // clear() allocates a fresh table even when empty (the bench's translate figure): only when needed.
  if (state.tools.size > 0) state.tools.clear();
  if (state.toolOutput.size > 0) state.toolOutput.clear();
  if (state.blocks.size > 0) state.blocks.clear();
  state.openUserItem = undefined;
  state.openCompaction = undefined;
}

/** Ends a turn for a reason that is not a Pi frame (process exit, a rejected prompt). */
export function failTurn(state: PiTranslateState, error: ErrorInfo): EventPayload[] {
  state.pendingEnd = { outcome: { status: 'failed', error } };
  return settleTurn(state);
}

// ---- usage ----
// Key by key, no closures: addUsage runs for every assistant message (the bench's translate figure).

const providerCost = (amount: number) => ({ amount, currency: 'USD' as const, source: 'provider' as const });

function currentUsage(state: PiTranslateState): Usage | undefined {
  if (!state.turnUsage && state.turnCost === undefined) return undefined;
  const usage: Usage = {};
  if (state.turnUsage) usage.turn = state.turnUsage;
  if (state.turnCost !== undefined) usage.costUsd = providerCost(state.turnCost);
  return usage;
}

/** `sum + value` where value is a count; else `sum` as it was (absent stays absent). */
function plus(sum: number | undefined, value: unknown): number | undefined {
  const n = count(value);
  return n === undefined ? sum : (sum ?? 0) + n;
}

export function addUsage(state: PiTranslateState, usage: unknown): EventPayload | undefined {
  if (!isRecord(usage)) return undefined;
  // A fresh object per message (the previous one was emitted); a plain clone is V8's fast spread.
  const turn: TokenUsage = { ...state.turnUsage };
  const input = plus(turn.input, usage.input);
  if (input !== undefined) turn.input = input;
  const cachedInput = plus(turn.cachedInput, usage.cacheRead);
  if (cachedInput !== undefined) turn.cachedInput = cachedInput;
  const cacheWrite = plus(turn.cacheWrite, usage.cacheWrite);
  if (cacheWrite !== undefined) turn.cacheWrite = cacheWrite;
  const output = plus(turn.output, usage.output);
  if (output !== undefined) turn.output = output;
  const total = plus(turn.total, usage.totalTokens);
  if (total !== undefined) turn.total = total;
  state.turnUsage = turn;
  // Pi prices usage from its own model table (models.json `cost`) and reports it: source provider
  // (the harness reported it; derived is for Reins' own price table). A zero there means "no price
  // known", not "free", so a zero total is left absent.
  const cost = isRecord(usage.cost) ? count(usage.cost.total) : undefined;
  if (cost !== undefined && cost > 0) state.turnCost = (state.turnCost ?? 0) + cost;
  const used = count(usage.totalTokens);
  const window = count(state.contextWindow);
  const payload: EventPayload & { type: 'usage.updated' } = { type: 'usage.updated', turn };
  if (used !== undefined || window !== undefined) {
    payload.context = used === undefined ? { window } : window === undefined ? { used } : { used, window };
  }
  if (state.turnCost !== undefined) payload.costUsd = providerCost(state.turnCost);
  return payload;
}
