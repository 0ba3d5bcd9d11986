// What the bridge's translation remembers about one Codex thread: its settings as last reported, the
// Codex turn in progress (made of one or more Reins turns), the items in flight, and what was last
// sent (so repeats are skipped). Pure data plus the one rule every part uses: which Codex turn id a
// Reins turn belongs to.
import type { SessionStatus, TurnCompletedEvent, TurnInput } from '@reins/core';
import { uuidv7 } from '../ids.js';
import type { TurnRecord } from '../records.js';
import { ZERO_BREAKDOWN } from './usage.js';
import type { ThreadItem, TokenUsageBreakdown, TurnItemsView } from './wire.js';

/** What turn/completed carries: Codex's live view (`summary`: the final message) or every item (`full`). */
export type CompletedItemsView = Extract<TurnItemsView, 'summary' | 'full'>;

/** A user input the Codex turn took, waiting for its userMessage item to go out. */
export interface PendingInput {
  input: TurnInput;
  atMs: number;
  /** The Reins turn it started (absent for input steered into a running turn). */
  reinsTurnId?: string;
}

/** One Codex turn: the Reins turns it is made of, and how far they are. */
export interface CodexTurn {
  /** The Codex turn id: a UUIDv7 the bridge made. */
  id: string;
  startedAtMs: number;
  /** Reins turns of this Codex turn that are running. */
  running: Set<string>;
  /** Reins turns delivered into it (steer on a harness without steer) that have not started yet. */
  awaiting: Set<string>;
  /** Reins turns of it that have ended. */
  ended: Set<string>;
  /** turn/steer requests whose send() has not answered yet: the turn cannot end before they do. */
  steersPending: number;
  interruptRequested: boolean;
  /** The terminal of the Reins turn that ended last. */
  lastTerminal: TurnCompletedEvent | undefined;
  /** User inputs the turn took (one per Reins turn, plus input steered into one). */
  inputs: number;
  /** The text of the first of them (to find the turn again in a transcript). */
  firstInput: string | undefined;
  /** Inputs whose userMessage item has not gone out yet (the harness may still send its own). */
  pendingInputs: PendingInput[];
  /** Texts of user messages the harness sent before the bridge knew of their input (a steer's). */
  unclaimedUserTexts: string[];
  /** The turn's items on this thread, in the order they started, each in its latest form. */
  items: ThreadItem[];
  itemIndex: Map<string, number>;
  /** Items of the turn (any thread) that have completed: a second completion changes nothing. */
  completedItems: Set<string>;
  /** The last agent message of the main thread that completed (Codex's summary of the turn). */
  finalAgentMessage: ThreadItem | undefined;
  /** A compaction (Session.compact): Codex shows no userMessage in it, only its contextCompaction item. */
  compaction: boolean;
}

export interface ItemProgress {
  /** What the Codex item is (a tool's output delta goes to the notification of its kind). */
  kind: ThreadItem['type'];
  startedAtMs: number;
  /** Output gathered from tool_output deltas, for a completed item that carries none. */
  output: string;
  /** The item is on a subagent's child thread, not in the turn's own items. */
  child: boolean;
}

export interface ThreadState {
  threadId: string;
  /** The thread this one is a fork of (thread/fork), for Thread.forkedFromId and its stored turns. */
  forkedFromId: string | undefined;
  cwd: string;
  model: string | undefined;
  effort: string | undefined;
  title: string | undefined;
  nativeSessionId: string | undefined;
  harnessVersion: string | undefined;
  status: SessionStatus | undefined;
  /** thread/closed went out. */
  closed: boolean;
  itemsView: CompletedItemsView;
  turn: CodexTurn | undefined;
  /** The id of the Codex turn that ended last (usage or errors that arrive after it). */
  lastTurnId: string | undefined;
  /** Reins turn id -> Codex turn id, for the turns seen lately (bounded). */
  codexIds: Map<string, string>;
  /** Reins turns that have ended lately (bounded): a turn.started for one again opens nothing. */
  endedReinsTurns: Set<string>;
  items: Map<string, ItemProgress>;
  /** Per Codex turn: the last plan and token usage sent (repeats are skipped). */
  lastPlan: string | undefined;
  lastUsage: string | undefined;
  /** The last agent message text of the main thread in this Codex turn (structured output check). */
  lastAgentText: string | undefined;
  /** Sum of the usage of the thread's ended turns, when known exactly (a thread started here). */
  turnsUsage: TokenUsageBreakdown | undefined;
  /** The latest usage of the turn in progress. */
  turnUsage: TokenUsageBreakdown | undefined;
  /** Codex turns that ended and are not yet in the bridge's records (the thread drains it). */
  endedTurns: TurnRecord[];
  /** thread/compact/start asked the session to compact: the next turn to start is that compaction. */
  compactionAsked: boolean;
}

export function createThreadState(init: {
  threadId: string;
  cwd: string;
  model?: string;
  effort?: string;
  itemsView?: CompletedItemsView;
  /** A thread the bridge started now (not resumed): its usage so far is known to be zero. */
  fresh?: boolean;
  /** The thread this one is a fork of. */
  forkedFromId?: string;
}): ThreadState {
  return {
    threadId: init.threadId,
    forkedFromId: init.forkedFromId,
    cwd: init.cwd,
    model: init.model,
    effort: init.effort,
    title: undefined,
    nativeSessionId: undefined,
    harnessVersion: undefined,
    status: undefined,
    closed: false,
    itemsView: init.itemsView ?? 'summary',
    turn: undefined,
    lastTurnId: undefined,
    codexIds: new Map(),
    endedReinsTurns: new Set(),
    items: new Map(),
    lastPlan: undefined,
    lastUsage: undefined,
    lastAgentText: undefined,
    turnsUsage: init.fresh === false ? undefined : ZERO_BREAKDOWN,
    turnUsage: undefined,
    endedTurns: [],
    compactionAsked: false,
  };
}

/** Reins turn ids remembered per thread for the id mapping. */
const MAX_TURN_IDS = 1_000;

/**
 * The Codex turn id of a Reins turn: the open Codex turn's when the Reins turn is part of it, the id
 * given to it before, or a new UUIDv7. The answer to turn/start and the turn/started notification
 * both come through here, so they agree in whichever order they happen.
 */
export function codexTurnIdFor(state: ThreadState, reinsTurnId: string, nowMs: number = Date.now()): string {
  const turn = state.turn;
  if (turn && (turn.running.has(reinsTurnId) || turn.awaiting.has(reinsTurnId) || turn.ended.has(reinsTurnId))) {
    return turn.id;
  }
  const known = state.codexIds.get(reinsTurnId);
  if (known) return known;
  const id = uuidv7(nowMs);
  rememberTurnId(state, reinsTurnId, id);
  return id;
}

/** A Reins turn ended: remembered (bounded) so a repeated start of it is not a new turn. */
export function rememberEnded(state: ThreadState, reinsTurnId: string): void {
  state.endedReinsTurns.add(reinsTurnId);
  if (state.endedReinsTurns.size > MAX_TURN_IDS) {
    const oldest = state.endedReinsTurns.values().next().value;
    if (oldest !== undefined) state.endedReinsTurns.delete(oldest);
  }
}

export function rememberTurnId(state: ThreadState, reinsTurnId: string, codexTurnId: string): void {
  state.codexIds.set(reinsTurnId, codexTurnId);
  if (state.codexIds.size > MAX_TURN_IDS) {
    const oldest = state.codexIds.keys().next().value;
    if (oldest !== undefined) state.codexIds.delete(oldest);
  }
}

/** The Codex turn id a Reins turn belongs to, when it is part of the open Codex turn. */
export function openTurnIdOf(state: ThreadState, reinsTurnId: string | null): string | undefined {
  if (reinsTurnId === null || !state.turn) return undefined;
  const turn = state.turn;
  return turn.running.has(reinsTurnId) || turn.awaiting.has(reinsTurnId) || turn.ended.has(reinsTurnId)
    ? turn.id
    : undefined;
}
