// The rows of a transcript (what a person reads of a session) and how an item becomes one: the
// shapes the reducer (transcript.ts) produces and views render. Pure data, no state.
import type {
  AgentMessageItem,
  CheckpointChange,
  CompactionItem,
  ErrorInfo,
  Item,
  NoticeKind,
  PermissionDecision,
  PermissionOption,
  PlanItem,
  Posture,
  ReasoningItem,
  ReinsEvent,
  SessionStatus,
  ToolCallItem,
  ToolInfo,
  TurnOutcome,
  Usage,
  UserMessageItem,
} from '@reins/core';

export interface RowBase {
  /** Stable across updates: the item id, or a key made from the event's seq. */
  key: string;
  turnId: string | null;
  /** seq of the event that created the row. */
  seq: number;
}
export type UserRow = RowBase & {
  kind: 'user';
  item: UserMessageItem;
  /** How the daemon delivered it, when this console sent it: started, queued or steered. */
  delivery?: 'started' | 'queued' | 'steered';
};
export type AgentRow = RowBase & { kind: 'agent'; item: AgentMessageItem };
export type ReasoningRow = RowBase & { kind: 'reasoning'; item: ReasoningItem };
export type ToolRow = RowBase & {
  kind: 'tool';
  item: ToolCallItem;
  /** tool_output deltas so far (the completed item's output is the truth once it came). */
  liveOutput: string;
  /** tool_input deltas so far. */
  liveInput: string;
  /** Rows of the subagent this tool call spawned (events whose parentItemId is this item). */
  lane: Row[];
  /** Still running although the turn that started it ended (background work). */
  background: boolean;
  /** A permission request named this call (under posture `ask`, one that ran without it was allowed by the harness's own rules). */
  asked: boolean;
};
export type PlanRow = RowBase & { kind: 'plan'; item: PlanItem };
export type CompactionRow = RowBase & { kind: 'compaction'; item: CompactionItem };
export type NoticeRow = RowBase & {
  kind: 'notice';
  notice: NoticeKind;
  message: string;
  data?: unknown;
  /** The same notice several times in a row is one row. */
  count: number;
};
export type ErrorRow = RowBase & { kind: 'error'; error: ErrorInfo; fatal: boolean };
export type PermissionRow = RowBase & {
  kind: 'permission';
  requestId: string;
  tool: ToolInfo;
  input?: unknown;
  itemId?: string;
  options: PermissionOption[];
  resolved?: { decision: PermissionDecision; by: 'client' | 'timeout' | 'harness' };
};
export type TurnEndRow = RowBase & {
  kind: 'turn-end';
  outcome: TurnOutcome;
  usage?: Usage;
  stopReason?: string;
};
export type SessionRow = RowBase & {
  kind: 'session';
  event: 'started' | 'closed';
  text: string;
  error?: ErrorInfo;
};
/** A turn's changes as Reins measured them on disk (the `checkpoint` event), with Undo until reverted. */
export type CheckpointRow = RowBase & {
  kind: 'checkpoint';
  turnId: string;
  changes: CheckpointChange[];
  truncated: boolean;
  /** Undone through session/revert (this turn or an earlier one). */
  reverted: boolean;
};
/** A line the console itself adds (how a setting change applied, an action that failed). */
export type NoteRow = RowBase & { kind: 'note'; text: string; tone: 'info' | 'error' };

export type Row =
  | UserRow
  | AgentRow
  | ReasoningRow
  | ToolRow
  | PlanRow
  | CompactionRow
  | NoticeRow
  | ErrorRow
  | PermissionRow
  | TurnEndRow
  | SessionRow
  | CheckpointRow
  | NoteRow;

export interface SessionFacts {
  cwd?: string;
  model?: string;
  effort?: string;
  title?: string;
  mode?: string;
  nativeSessionId?: string;
  harnessVersion?: string;
  binaryPath?: string;
  /** The harness's own lifecycle signal (session.status). */
  status?: SessionStatus;
  closed?: 'requested' | 'process_exited' | 'error';
}

export interface TranscriptView {
  rows: Row[];
  facts: SessionFacts;
  /** The newest usage the harness reported; each part absent until it reported it. */
  usage: Usage;
  /** The turn running now (the newest without a turn.completed), if any. */
  runningTurnId: string | undefined;
  /** Permission requests still waiting for an answer. */
  pendingPermissions: PermissionRow[];
  /** The newest rate-limit status the harness reported while no limit was hit (a status, not a transcript row). */
  rateLimit?: { message: string; data?: unknown };
  lastSeq: number;
  eventCount: number;
  passthroughCount: number;
}

export const ITEM_ROW_KIND = {
  user_message: 'user',
  agent_message: 'agent',
  reasoning: 'reasoning',
  tool_call: 'tool',
  plan: 'plan',
  compaction: 'compaction',
} as const;

export function newItemRow(item: Item, base: RowBase): Row {
  switch (item.kind) {
    case 'user_message':
      return { ...base, kind: 'user', item };
    case 'agent_message':
      return { ...base, kind: 'agent', item };
    case 'reasoning':
      return { ...base, kind: 'reasoning', item };
    case 'tool_call':
      return { ...base, kind: 'tool', item, liveOutput: '', liveInput: '', lane: [], background: false, asked: false };
    case 'plan':
      return { ...base, kind: 'plan', item };
    case 'compaction':
      return { ...base, kind: 'compaction', item };
  }
}

/**
 * Under posture `ask`, a command or file change that ran although no permission request named it: the harness's
 * own allow rules let it through (Claude Code's settings allow `echo` and the like), which a user who asked to be
 * asked should be told. Reads and other tools never ask, so they are not flagged.
 */
export function ranWithoutAsking(row: ToolRow, posture: Posture | undefined): boolean {
  if (posture !== 'ask' || row.asked) return false;
  const { kind } = row.item.tool;
  if (kind !== 'command' && kind !== 'file_change') return false;
  return row.item.status === 'completed' || row.item.status === 'failed';
}

/** The same row with the item's newer state; a different kind of item under the same id replaces it. */
export function updatedItemRow(existing: Row, item: Item, completed: boolean, turnEnded: boolean): Row {
  if (existing.kind !== ITEM_ROW_KIND[item.kind]) {
    return newItemRow(item, { key: existing.key, turnId: existing.turnId, seq: existing.seq });
  }
  if (existing.kind === 'tool' && item.kind === 'tool_call') {
    const running = item.status === 'running';
    return { ...existing, item, background: running && (existing.background || turnEnded) };
  }
  if (!completed && (existing.kind === 'agent' || existing.kind === 'reasoning') && 'text' in item) {
    // A second item.started (or a running snapshot) must not throw away text that streamed in.
    const text = item.text.length >= existing.item.text.length ? item.text : existing.item.text;
    return { ...existing, item: { ...item, text } } as Row;
  }
  return { ...existing, item } as Row;
}

export function startedText(event: Extract<ReinsEvent, { type: 'session.started' }>, resumed: boolean): string {
  const parts = [event.harness];
  if (event.harnessVersion) parts.push(event.harnessVersion);
  if (event.model) parts.push(`model ${event.model}`);
  return `${parts.join(' · ')} ${resumed ? 'resumed the conversation' : 'started'} in ${event.cwd}`;
}

export function closedText(reason: 'requested' | 'process_exited' | 'error'): string {
  if (reason === 'requested') return 'Session closed.';
  if (reason === 'process_exited') return 'The harness process exited: the session is closed.';
  return 'The session ended with an error.';
}
