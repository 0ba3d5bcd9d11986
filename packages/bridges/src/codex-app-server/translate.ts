// Pure translation of Reins session events into Codex app-server notifications: one ThreadState per
// Codex thread, one event in, the notifications it becomes out (often none). No process, no I/O.
// Items live in items.ts, errors in errors.ts, usage in usage.ts, the turn lifecycle in turns.ts and
// stored history in history.ts; this file routes events to them.
//
// Rules:
// - The completed item is the truth and carries the whole text; deltas are previews (as in Codex).
// - Items Reins closed without a result (cancelled, or a text item of a failed turn) get no
//   item/completed (items.ts completesOnWire); a completed item never announced is announced first.
// - Items outside a Codex turn are history a resume replayed: thread/resume and the history
//   methods carry it, not notifications.
// - An event that does not validate against the Reins schema, or whose translation fails, never
//   reaches the client and never stops the thread: translateSafely reports it and sends nothing.
import type { NoticeKind, ReinsEvent, SessionStatus } from '@reins/core';
import { guarded, type TranslationFault } from '../events.js';
import { childThreadId, completesOnWire, type ItemContext, planStepsOf, threadItemOf, timed } from './items.js';
import { openTurnIdOf, type ThreadState } from './state.js';
import {
  claimInput,
  errorNotification,
  finishTurn,
  flushInputs,
  recordTurnItem,
  turnCompleted,
  turnStarted,
  usageNotification,
} from './turns.js';
import type { BridgeNotification, ThreadStatus } from './wire.js';

export type { TranslationFault } from '../events.js';
export { childThreadId } from './items.js';
export { type CodexTurn, createThreadState, type ThreadState } from './state.js';

function threadStatusOf(status: SessionStatus): ThreadStatus {
  if (status === 'idle') return { type: 'idle' };
  return { type: 'active', activeFlags: status === 'requires_action' ? ['waitingOnApproval'] : [] };
}

function noticeNotification(state: ThreadState, event: ReinsEvent & { type: 'notice' }): BridgeNotification[] {
  const kind: NoticeKind = event.kind;
  switch (kind) {
    case 'retry': {
      // Codex reports a retry as an error that will be retried.
      const turnId = state.turn?.id;
      if (!turnId) return [];
      return [
        errorNotification(state, { code: 'provider_error', message: event.message, retryable: true }, turnId, true),
      ];
    }
    case 'deprecation':
      return [{ method: 'deprecationNotice', params: { summary: event.message, details: null } }];
    case 'warning':
    case 'rate_limit':
    case 'metered_key':
      return [{ method: 'warning', params: { threadId: state.threadId, message: event.message } }];
    // Compaction shows as its contextCompaction item; hooks and plain information have no Codex
    // notification that takes free text (hook/started wants Codex's own hook run records).
    default:
      return [];
  }
}

function planEvent(
  state: ThreadState,
  event: ReinsEvent & { type: 'item.started' | 'item.completed' },
  turnId: string,
): BridgeNotification[] {
  // A plan with statuses is Codex's turn plan (its todo list), sent whole on every change.
  if (event.item.kind !== 'plan' || event.parentItemId || event.item.entries.length === 0) return [];
  const plan = planStepsOf(event.item.entries);
  const snapshot = JSON.stringify(plan);
  if (snapshot === state.lastPlan) return [];
  state.lastPlan = snapshot;
  return [{ method: 'turn/plan/updated', params: { threadId: state.threadId, turnId, explanation: null, plan } }];
}

function itemEvent(
  state: ThreadState,
  event: ReinsEvent & { type: 'item.started' | 'item.completed' },
): BridgeNotification[] {
  const turnId = openTurnIdOf(state, event.turnId);
  const item = event.item;
  if (!turnId || !state.turn || (item.kind === 'user_message' && (item.replay || state.turn.compaction))) return [];
  const turn = state.turn;
  const child = event.parentItemId !== undefined;
  const progress = state.items.get(item.id);
  // The same item announced or settled twice is told once.
  if (event.type === 'item.started' && (progress || turn.completedItems.has(item.id))) return [];
  if (event.type === 'item.completed' && turn.completedItems.has(item.id)) return [];
  const out: BridgeNotification[] = [];
  if (item.kind === 'user_message' && !child) {
    if (!progress) claimInput(turn, item.text);
  } else {
    out.push(...flushInputs(state, event.at));
  }
  if (item.kind === 'plan') return [...out, ...planEvent(state, event, turnId)];
  const threadId = child ? childThreadId(state.threadId, event.parentItemId as string) : state.threadId;
  const context: ItemContext = { threadId: state.threadId, cwd: state.cwd };
  if (event.type === 'item.started') {
    const threadItem = timed(threadItemOf(item, context), event.at, null);
    state.items.set(item.id, { kind: threadItem.type, startedAtMs: event.at, output: '', child });
    if (!child) recordTurnItem(turn, threadItem, false);
    out.push({ method: 'item/started', params: { item: threadItem, threadId, turnId, startedAtMs: event.at } });
    return out;
  }
  state.items.delete(item.id);
  turn.completedItems.add(item.id);
  const settled = timed(
    threadItemOf(item, { ...context, ...(progress ? { streamedOutput: progress.output } : {}) }),
    progress?.startedAtMs ?? event.at,
    event.at,
  );
  if (!completesOnWire(item)) {
    // Cut off: no item/completed, but a full view of the turn shows it as it was left.
    if (progress && !child) recordTurnItem(turn, settled, false);
    return out;
  }
  if (!progress) {
    // Never announced (a harness that sends finished items only): Codex always starts an item first.
    const started = timed(threadItemOf({ ...item, status: 'running' }, context), event.at, null);
    out.push({ method: 'item/started', params: { item: started, threadId, turnId, startedAtMs: event.at } });
  }
  if (!child) {
    recordTurnItem(turn, settled, true);
    if (item.kind === 'agent_message') state.lastAgentText = item.text;
  }
  out.push({ method: 'item/completed', params: { item: settled, threadId, turnId, completedAtMs: event.at } });
  return out;
}

function deltaEvent(state: ThreadState, event: ReinsEvent & { type: 'item.delta' }): BridgeNotification[] {
  const turnId = openTurnIdOf(state, event.turnId);
  if (!turnId || event.text === '') return [];
  const out = flushInputs(state, event.at);
  const threadId = event.parentItemId ? childThreadId(state.threadId, event.parentItemId) : state.threadId;
  const common = { threadId, turnId, itemId: event.itemId };
  switch (event.kind) {
    case 'text':
      out.push({ method: 'item/agentMessage/delta', params: { ...common, delta: event.text } });
      return out;
    case 'reasoning':
      out.push({ method: 'item/reasoning/textDelta', params: { ...common, delta: event.text, contentIndex: 0 } });
      return out;
    case 'tool_output': {
      const progress = state.items.get(event.itemId);
      if (!progress) return out;
      progress.output += event.text;
      if (progress.kind === 'commandExecution') {
        out.push({ method: 'item/commandExecution/outputDelta', params: { ...common, delta: event.text } });
      } else if (progress.kind === 'mcpToolCall') {
        out.push({ method: 'item/mcpToolCall/progress', params: { ...common, message: event.text } });
      }
      // Other tools have no output notification in Codex 0.169.0 (it no longer sends the fileChange
      // one); their completed item carries the output.
      return out;
    }
    // Codex streams no tool input; the item carries the whole input.
    default:
      return out;
  }
}

/** One Reins event -> the Codex notifications it becomes (often none). */
export function translateEvent(state: ThreadState, given: ReinsEvent): BridgeNotification[] {
  // Codex's times are whole milliseconds; the contract's `at` is any number (fuzz seed 7, case 86472).
  const event = Number.isInteger(given.at) ? given : { ...given, at: Math.floor(given.at) };
  switch (event.type) {
    case 'session.started':
      state.model ??= event.model;
      state.harnessVersion = event.harnessVersion;
      return [];
    case 'session.updated': {
      if (event.model) state.model = event.model;
      if (event.effort) state.effort = event.effort;
      if (event.nativeSessionId) state.nativeSessionId = event.nativeSessionId;
      // The thread id never changes, so a native id learned later has no Codex place; mode, tools
      // and apiKeySource have none either.
      if (event.title === undefined || event.title === state.title) return [];
      state.title = event.title;
      return [{ method: 'thread/name/updated', params: { threadId: state.threadId, threadName: event.title } }];
    }
    case 'session.status':
      if (event.status === state.status) return [];
      state.status = event.status;
      return [
        { method: 'thread/status/changed', params: { threadId: state.threadId, status: threadStatusOf(event.status) } },
      ];
    case 'session.closed': {
      // The turn ended with the session (Reins completes it first); a Codex turn still waiting for
      // steered input that will never run ends here.
      if (state.closed) return [];
      const out = state.turn ? finishTurn(state, event.at) : [];
      state.closed = true;
      out.push({ method: 'thread/closed', params: { threadId: state.threadId } });
      return out;
    }
    case 'turn.started':
      return turnStarted(state, event);
    case 'turn.completed':
      return turnCompleted(state, event);
    case 'item.started':
    case 'item.completed':
      return itemEvent(state, event);
    case 'item.delta':
      return deltaEvent(state, event);
    case 'usage.updated': {
      // A subagent's own usage is not the thread's.
      if (event.parentItemId) return [];
      const turnId = state.turn?.id ?? state.lastTurnId;
      return turnId ? usageNotification(state, event, turnId) : [];
    }
    case 'notice':
      return noticeNotification(state, event);
    case 'error': {
      const turnId = state.turn?.id ?? state.lastTurnId;
      // Codex's error notification names a turn; before the first one, a warning carries the words.
      if (!turnId) return [{ method: 'warning', params: { threadId: state.threadId, message: event.message } }];
      return [...flushInputs(state, event.at), errorNotification(state, event, turnId)];
    }
    // The server asks the client (a server -> client request) and tells it when the harness settled
    // it; native frames of the harness underneath mean nothing to a Codex client.
    default:
      return [];
  }
}

export function translateSafely(
  state: ThreadState,
  event: unknown,
  onFault: (fault: TranslationFault) => void = () => {},
): BridgeNotification[] {
  return guarded(event, (checked) => translateEvent(state, checked), onFault);
}
