// What the Pi translation remembers about one session (translate.ts reads frames against it): the open
// blocks of the assistant message being streamed, the running tool calls, the open user and compaction
// items, the turn's usage and pending end (turn-end.ts), and the item ids already announced.
import type { EventPayload, TokenUsage, ToolCallItem } from '@reins/core';

export type BlockKind = 'text' | 'reasoning' | 'tool';

export interface OpenBlock {
  itemId: string;
  kind: BlockKind;
}

export interface PendingEnd {
  outcome: Extract<EventPayload, { type: 'turn.completed' }>['outcome'];
  stopReason?: string;
}

export interface PiTranslateState {
  /** Numbers assistant messages so their text/thinking blocks get session-unique item ids. */
  assistantCount: number;
  userCount: number;
  compactionCount: number;
  /** Open text/thinking/toolcall blocks of the assistant message being streamed, by contentIndex. */
  blocks: Map<number, OpenBlock>;
  /** contentIndexes of the current assistant message whose block already ended (a re-sent end is no news). */
  endedBlocks?: Set<number>;
  /** Tool calls started and not yet completed, by toolCallId. */
  tools: Map<string, ToolCallItem>;
  /** Output text already previewed per tool call (Pi sends the accumulated output each time). */
  toolOutput: Map<string, string>;
  openUserItem: string | undefined;
  openCompaction: string | undefined;
  /** Usage of the running turn, summed over its assistant messages; undefined until reported. */
  turnUsage: TokenUsage | undefined;
  turnCost: number | undefined;
  contextWindow: number | undefined;
  /** Set by agent_end; the terminal waits for the barrier (turn-end.ts). */
  pendingEnd: PendingEnd | undefined;
  /** Between auto_retry_start and the next agent_end. */
  retrying: boolean;
  /** The client asked to stop: an error or a given-up retry then ends the turn as cancelled. */
  interruptRequested: boolean;
  /** Item ids already started / completed, so no item is announced twice (bounded: sink.ts). */
  seen?: Map<string, 'started' | 'completed'>;
}

export function createPiTranslateState(): PiTranslateState {
  return {
    assistantCount: 0,
    userCount: 0,
    compactionCount: 0,
    blocks: new Map(),
    endedBlocks: new Set(),
    tools: new Map(),
    toolOutput: new Map(),
    openUserItem: undefined,
    openCompaction: undefined,
    turnUsage: undefined,
    turnCost: undefined,
    contextWindow: undefined,
    pendingEnd: undefined,
    retrying: false,
    interruptRequested: false,
    seen: new Map(),
  };
}

/** Clears the per-turn parts of the state when a new turn starts. */
export function beginPiTurn(state: PiTranslateState): void {
  state.turnUsage = undefined;
  state.turnCost = undefined;
  state.pendingEnd = undefined;
  state.retrying = false;
  state.interruptRequested = false;
}
