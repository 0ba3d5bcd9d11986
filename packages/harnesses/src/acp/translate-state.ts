// The state ACP translation keeps per session (open text item, tool calls, the turn's text, what the agent
// last reported) and the per-agent quirks it honours. Types and constructors only: translate.ts and its
// parts (message-chunks.ts, tool-calls.ts, plans.ts, compactions.ts) change it.
import type { ProviderErrorKind, ToolCallItem } from '@reins/core';

/** One tool call's item as it builds up over tool_call / tool_call_update frames (tool-calls.ts). */
export interface ToolState {
  item: ToolCallItem;
  /** The output text seen so far, to emit only what is new as a delta. */
  outputText: string;
  settled: boolean;
}

export type TextKind = 'agent_message' | 'reasoning' | 'user_message';

export interface OpenText {
  id: string;
  kind: TextKind;
  text: string;
  /** OpenCode 1.18 tags chunks with a messageId; a new id starts a new item. */
  messageId?: string;
  replay: boolean;
}

export interface TranslateState {
  /** Counter for the item ids Reins makes up (ACP gives no ids to message chunks). */
  nextId: number;
  openText: OpenText | undefined;
  /** toolCallId -> state, for the current turn (or the current replay). */
  tools: Map<string, ToolState>;
  /** Item ids used so far, so a toolCallId reused in a later turn still gets a fresh item id. */
  usedIds: Set<string>;
  /** All agent text of the current turn, in order (structured output, provider-error detection). */
  turnText: string;
  /** The text of the last agent_message item of the current turn. */
  lastAgentText: string;
  /** A provider failure the agent reported as a status chunk in this turn (see TranslateOptions.statusChunk). */
  providerError: ProviderErrorMatch | undefined;
  /** Output updates (text, thoughts, tools, plans) in the current turn (claude-agent-acp empty-answer detection). */
  turnUpdates: number;
  /** What the agent last reported through config options / modes. */
  current: { model?: string; effort?: string; mode?: string };
  /** compactionId -> whether its item was started / completed (an upsert per id). */
  compactions?: Map<string, 'started' | 'completed'>;
  options: TranslateOptions;
}

export interface ProviderErrorMatch {
  kind: ProviderErrorKind;
  status?: number;
  message: string;
}

/** A message chunk that is the agent's own status line, not model output. */
export type StatusChunk = { kind: 'retry'; message: string } | { kind: 'provider_error'; error: ProviderErrorMatch };

/** Per-agent translation quirks (see the presets). */
export interface TranslateOptions {
  /**
   * Recognizes status lines an agent sends as agent_message_chunk (Copilot CLI 1.0.102: "Info: ...
   * Retrying..." while it retries a 5xx, then "Error: <status> <body>" with stopReason end_turn).
   * A retry becomes a `notice`; an error fails the turn with provider_error. Neither is agent text.
   */
  statusChunk?: (text: string) => StatusChunk | undefined;
  /** Rewrites a thought chunk; `continuing` when it extends the open reasoning item (Gemini's headings). */
  thoughtChunk?: (text: string, continuing: boolean) => string;
  /**
   * Gemini CLI 0.61.0 sends no rawInput for its shell tool; the title is the command line, and the
   * tool name is the toolCallId's prefix (`run_shell_command__run_shell_command_<n>`).
   */
  commandFromTitle?: boolean;
  toolNameFromId?: (toolCallId: string) => string | undefined;
}

export function createTranslateState(options: TranslateOptions = {}): TranslateState {
  return {
    options,
    nextId: 1,
    openText: undefined,
    tools: new Map(),
    usedIds: new Set(),
    turnText: '',
    lastAgentText: '',
    providerError: undefined,
    turnUpdates: 0,
    current: {},
    compactions: new Map(),
  };
}

/** A fresh item id for an item ACP gives no id (message chunks, plans). */
export function freshId(state: TranslateState, prefix: string): string {
  const id = `${prefix}_${state.nextId++}`;
  state.usedIds.add(id);
  return id;
}
