// Pure: the life of a Codex turn over Reins turns. A Codex turn is one or more Reins turns: turn/start
// opens one; input steered into it on a harness that cannot steer runs as the next Reins turn inside
// the SAME Codex turn (Codex 0.169.0 treats added input the same way: the turn ends when all its input
// has been answered), so turn/completed goes out once, when the last of them ends, holding the turn's
// items in the view the thread asked for. Every input the turn took gets its userMessage item (the
// harness's own when it sends one, else one made from the input), right after the turn starts.
import type { ErrorInfo, ReinsEvent, TurnCompletedEvent, TurnInput, TurnOutcome, Usage } from '@reins/core';
import { uuidv7 } from '../ids.js';
import { turnErrorOf } from './errors.js';
import { firstInputKey } from './history.js';
import { threadItemOf, timed, userInputOf } from './items.js';
import { type CodexTurn, codexTurnIdFor, rememberEnded, type ThreadState } from './state.js';
import { addBreakdowns, breakdownOf, tokenUsageOf } from './usage.js';
import type { BridgeNotification, ThreadItem, Turn, TurnError, TurnStatus } from './wire.js';

const seconds = (ms: number) => Math.floor(ms / 1000);
/** The input of a Session.compact() turn (docs/architecture/contract.md, "Compaction"). */
const COMPACT_INPUT = '/compact';

function newTurn(id: string, atMs: number): CodexTurn {
  return {
    id,
    startedAtMs: atMs,
    running: new Set(),
    awaiting: new Set(),
    ended: new Set(),
    steersPending: 0,
    interruptRequested: false,
    lastTerminal: undefined,
    inputs: 0,
    firstInput: undefined,
    pendingInputs: [],
    unclaimedUserTexts: [],
    items: [],
    itemIndex: new Map(),
    completedItems: new Set(),
    finalAgentMessage: undefined,
    compaction: false,
  };
}

function isSettled(turn: CodexTurn): boolean {
  return turn.running.size === 0 && turn.awaiting.size === 0 && turn.steersPending === 0;
}

function turnStatusOf(outcome: TurnOutcome): TurnStatus {
  if (outcome.status === 'completed') return 'completed';
  return outcome.status === 'cancelled' ? 'interrupted' : 'failed';
}

/** The Codex Turn object; with `ended`, the turn as it ended, its items in the thread's view. */
function turnObject(
  state: ThreadState,
  turn: CodexTurn,
  status: TurnStatus,
  error: TurnError | null,
  endedAtMs?: number,
): Turn {
  let items: ThreadItem[] = [];
  let itemsView: Turn['itemsView'] = 'notLoaded';
  if (endedAtMs !== undefined && state.itemsView === 'full') {
    items = [...turn.items];
    itemsView = 'full';
  } else if (endedAtMs !== undefined && status === 'completed') {
    // Codex 0.169.0 and 0.171.0 end a completed turn with its final agent message as the summary,
    // and an interrupted or failed one with no items (notLoaded).
    items = turn.finalAgentMessage ? [turn.finalAgentMessage] : [];
    itemsView = 'summary';
  }
  return {
    id: turn.id,
    rootTurnId: turn.id,
    items,
    itemsView,
    status,
    error,
    startedAt: seconds(turn.startedAtMs),
    completedAt: endedAtMs === undefined ? null : seconds(endedAtMs),
    durationMs: endedAtMs === undefined ? null : Math.max(0, Math.round(endedAtMs - turn.startedAtMs)),
  };
}

/** The answer to turn/start: the turn runs and nothing more is known (Codex: no times yet). */
export function startedTurn(id: string): Turn {
  return {
    id,
    rootTurnId: id,
    items: [],
    itemsView: 'notLoaded',
    status: 'inProgress',
    error: null,
    startedAt: null,
    completedAt: null,
    durationMs: null,
  };
}

/** Keeps the latest form of an item of the turn (for a full view and for the summary). */
export function recordTurnItem(turn: CodexTurn, item: ThreadItem, completed: boolean): void {
  const index = turn.itemIndex.get(item.id);
  if (index === undefined) {
    turn.itemIndex.set(item.id, turn.items.length);
    turn.items.push(item);
  } else {
    turn.items[index] = item;
  }
  if (completed && item.type === 'agentMessage') turn.finalAgentMessage = item;
}

function itemPair(state: ThreadState, turn: CodexTurn, item: ThreadItem, atMs: number): BridgeNotification[] {
  const common = { threadId: state.threadId, turnId: turn.id };
  // A shallow copy: timed() sets only top-level fields, and nothing changes an item once it is sent.
  const started = timed({ ...item }, atMs, null);
  const completed = timed(item, atMs, atMs);
  recordTurnItem(turn, completed, true);
  return [
    { method: 'item/started', params: { ...common, item: started, startedAtMs: atMs } },
    { method: 'item/completed', params: { ...common, item: completed, completedAtMs: atMs } },
  ];
}

/** The userMessage items of inputs the harness did not announce itself, in order. */
export function flushInputs(state: ThreadState, atMs: number): BridgeNotification[] {
  const turn = state.turn;
  if (!turn || turn.pendingInputs.length === 0) return [];
  const out: BridgeNotification[] = [];
  for (const pending of turn.pendingInputs.splice(0)) {
    const item: ThreadItem = {
      type: 'userMessage',
      id: uuidv7(pending.atMs),
      clientId: null,
      content: userInputOf(pending.input),
    };
    out.push(...itemPair(state, turn, item, atMs));
  }
  return out;
}

/** A user input the turn took: its userMessage goes out next, unless the harness already sent it. */
function addInput(turn: CodexTurn, input: TurnInput, atMs: number, reinsTurnId?: string): void {
  turn.inputs++;
  turn.firstInput ??= firstInputKey(input.text);
  const claimed = turn.unclaimedUserTexts.indexOf(input.text);
  if (claimed !== -1) {
    turn.unclaimedUserTexts.splice(claimed, 1);
    return;
  }
  turn.pendingInputs.push({ input, atMs, ...(reinsTurnId ? { reinsTurnId } : {}) });
}

/** The harness announced a user message of the open turn: it is the next pending input's item. */
export function claimInput(turn: CodexTurn, text: string): void {
  if (turn.pendingInputs.length > 0) turn.pendingInputs.shift();
  else turn.unclaimedUserTexts.push(text);
}

/** Ends the open Codex turn with the outcome of the Reins turn that ended last. */
export function finishTurn(state: ThreadState, atMs: number): BridgeNotification[] {
  const turn = state.turn;
  if (!turn) return [];
  const out = flushInputs(state, atMs);
  state.turn = undefined;
  state.lastTurnId = turn.id;
  // Its Reins turns are over too (a session that closed under them): a late start of one is no new turn.
  for (const reinsTurnId of turn.running) rememberEnded(state, reinsTurnId);
  const outcome: TurnOutcome = turn.lastTerminal?.outcome ?? {
    status: 'failed',
    error: { code: 'process_exited', message: 'The harness session ended before the turn did.' },
  };
  if (state.turnsUsage)
    state.turnsUsage = state.turnUsage ? addBreakdowns(state.turnsUsage, state.turnUsage) : undefined;
  state.turnUsage = undefined;
  const error = outcome.status === 'failed' ? turnErrorOf(outcome.error) : null;
  const status = turnStatusOf(outcome);
  state.endedTurns.push({
    id: turn.id,
    status: status === 'inProgress' ? 'completed' : status,
    ...(error
      ? {
          error: {
            message: error.message,
            ...(error.codexErrorInfo !== null
              ? { codexErrorInfo: error.codexErrorInfo as string | Record<string, unknown> }
              : {}),
            additionalDetails: error.additionalDetails,
          },
        }
      : {}),
    inputs: Math.max(1, turn.inputs),
    ...(turn.firstInput !== undefined ? { firstInput: turn.firstInput } : {}),
    startedAtMs: turn.startedAtMs,
    completedAtMs: atMs,
  });
  // Codex tells a failure as an error notification (willRetry false) before the failed turn ends.
  if (outcome.status === 'failed') out.push(errorNotification(state, outcome.error, turn.id));
  out.push({
    method: 'turn/completed',
    params: { threadId: state.threadId, turn: turnObject(state, turn, status, error, atMs) },
  });
  return out;
}

/**
 * A turn that never reached the harness (blocks mode: a model the harness refused, an attachment
 * that is not there): it still starts, shows its input and ends failed, as every turn does.
 */
export function refusedTurn(
  state: ThreadState,
  input: TurnInput,
  error: ErrorInfo,
  atMs: number,
): BridgeNotification[] {
  const turn = newTurn(uuidv7(atMs), atMs);
  addInput(turn, input, atMs);
  turn.lastTerminal = {
    type: 'turn.completed',
    seq: 0,
    harness: '',
    sessionId: '',
    turnId: null,
    at: atMs,
    outcome: { status: 'failed', error },
  };
  // The turn in progress (if any) and the thread's usage are not this turn's business.
  const { turn: open, lastTurnId, turnsUsage, turnUsage } = state;
  state.turn = turn;
  state.turnUsage = undefined;
  const out: BridgeNotification[] = [
    { method: 'turn/started', params: { threadId: state.threadId, turn: turnObject(state, turn, 'inProgress', null) } },
    ...finishTurn(state, atMs),
  ];
  Object.assign(state, { turn: open, turnsUsage, turnUsage, lastTurnId: open ? lastTurnId : turn.id });
  return out;
}

/**
 * A turn/steer (or a turn/start while a turn runs) is about to call send(): the open Codex turn
 * cannot end until it answers. Returns the open turn's id, or undefined when no turn is open.
 */
export function beginSteer(state: ThreadState): string | undefined {
  if (!state.turn) return undefined;
  state.turn.steersPending++;
  return state.turn.id;
}

/**
 * The send() of a steer answered (`delivered`) or failed (undefined). Input the harness queued
 * instead of steering joins the Codex turn; if the turn had only been waiting for this, it ends now.
 */
export function endSteer(
  state: ThreadState,
  codexTurnId: string,
  input: TurnInput,
  delivered: { turnId: string; delivery: 'started' | 'queued' | 'steered' } | undefined,
  atMs: number,
): BridgeNotification[] {
  const turn = state.turn;
  if (!turn || turn.id !== codexTurnId) return [];
  turn.steersPending = Math.max(0, turn.steersPending - 1);
  if (delivered?.delivery === 'steered') addInput(turn, input, atMs);
  else if (delivered) {
    const seen = turn.running.has(delivered.turnId) || turn.ended.has(delivered.turnId);
    if (!seen) turn.awaiting.add(delivered.turnId);
    state.codexIds.set(delivered.turnId, turn.id);
  }
  return isSettled(turn) && turn.lastTerminal ? finishTurn(state, atMs) : [];
}

/** turn/interrupt for `codexTurnId`: true when it is the open turn (its Reins turns are to be stopped). */
export function requestInterrupt(state: ThreadState, codexTurnId: string): boolean {
  if (!state.turn || state.turn.id !== codexTurnId) return false;
  state.turn.interruptRequested = true;
  return true;
}

export function turnStarted(state: ThreadState, event: ReinsEvent & { type: 'turn.started' }): BridgeNotification[] {
  // A turn that has ended does not start again (a repeated frame), and a closed thread starts none.
  if (event.turnId === null || state.closed || state.endedReinsTurns.has(event.turnId)) return [];
  if (state.turn?.running.has(event.turnId)) return [];
  if (state.turn) {
    // A Reins turn that starts while a Codex turn is open is input delivered into it.
    state.turn.awaiting.delete(event.turnId);
    state.turn.running.add(event.turnId);
    state.codexIds.set(event.turnId, state.turn.id);
    addInput(state.turn, event.input, event.at, event.turnId);
    return [];
  }
  const turn = newTurn(codexTurnIdFor(state, event.turnId, event.at), event.at);
  turn.running.add(event.turnId);
  if (state.compactionAsked && event.input.text === COMPACT_INPUT) {
    // Counted (the harness's transcript may hold `/compact` as a message) but never shown as one.
    state.compactionAsked = false;
    turn.compaction = true;
    turn.inputs++;
    turn.firstInput = firstInputKey(event.input.text);
  } else addInput(turn, event.input, event.at, event.turnId);
  state.turn = turn;
  state.lastPlan = undefined;
  state.lastUsage = undefined;
  state.lastAgentText = undefined;
  return [
    { method: 'turn/started', params: { threadId: state.threadId, turn: turnObject(state, turn, 'inProgress', null) } },
  ];
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * Codex carries structured output as the turn's final agent message (clients parse its text). A
 * harness that returned it out of band (Claude Code's StructuredOutput tool) gets that message here,
 * holding the value the harness validated, unless its last message already says it.
 */
function structuredOutputMessage(state: ThreadState, turn: CodexTurn, event: TurnCompletedEvent): BridgeNotification[] {
  if (event.outcome.status !== 'completed' || event.structuredOutput === undefined) return [];
  if (state.lastAgentText !== undefined && sameJson(state.lastAgentText, event.structuredOutput)) return [];
  let text: string;
  try {
    text = JSON.stringify(event.structuredOutput);
  } catch {
    return [];
  }
  state.lastAgentText = text;
  const id = `${event.turnId}-structured-output`;
  const item = threadItemOf({ kind: 'agent_message', id, status: 'completed', text }, state);
  return itemPair(state, turn, item, event.at);
}

/** Token usage of the open turn, once per change (see usage.ts for what is said when). */
export function usageNotification(state: ThreadState, usage: Usage | undefined, turnId: string): BridgeNotification[] {
  if (!usage) return [];
  const turnUsage = breakdownOf(usage.turn);
  if (turnUsage && state.turn?.id === turnId) state.turnUsage = turnUsage;
  const tokenUsage = tokenUsageOf(usage, state.turn?.id === turnId ? state.turnsUsage : undefined);
  if (!tokenUsage) return [];
  const snapshot = JSON.stringify(tokenUsage);
  if (snapshot === state.lastUsage) return [];
  state.lastUsage = snapshot;
  return [{ method: 'thread/tokenUsage/updated', params: { threadId: state.threadId, turnId, tokenUsage } }];
}

export function errorNotification(
  state: ThreadState,
  error: ErrorInfo,
  turnId: string,
  willRetry = false,
): BridgeNotification {
  return { method: 'error', params: { error: turnErrorOf(error), willRetry, threadId: state.threadId, turnId } };
}

export function turnCompleted(state: ThreadState, event: TurnCompletedEvent): BridgeNotification[] {
  const turn = state.turn;
  if (!turn || event.turnId === null) return [];
  // A terminal for a Reins turn this Codex turn does not hold (again, or another's) changes nothing.
  if (!turn.running.has(event.turnId) && !turn.awaiting.has(event.turnId)) return [];
  turn.running.delete(event.turnId);
  turn.awaiting.delete(event.turnId);
  turn.ended.add(event.turnId);
  rememberEnded(state, event.turnId);
  turn.lastTerminal = event;
  const out = flushInputs(state, event.at);
  out.push(...usageNotification(state, event.usage, turn.id));
  out.push(...structuredOutputMessage(state, turn, event));
  if (!isSettled(turn)) {
    // More input of this Codex turn is still to run: a failure so far is told now, not lost.
    if (event.outcome.status === 'failed') out.push(errorNotification(state, event.outcome.error, turn.id));
    return out;
  }
  out.push(...finishTurn(state, event.at));
  return out;
}
