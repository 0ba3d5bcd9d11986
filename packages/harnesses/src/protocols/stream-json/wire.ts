// Native types of Claude-compatible stream-json (`--output-format stream-json`): the frames the
// translation reads, with exactly the fields it reads. Claude Code is the reference (2.1.197 and the
// 2.1.332 bundled with the Agent SDK 0.3.332); Amp speaks the same shape. The Claude adapter asserts at
// compile time that the Agent SDK's own message types still fit these (claude-code/wire.ts), so a
// protocol change in a new SDK shows up as a type error, not as silently missing events.

/** Anthropic Messages token usage as the CLI reports it (input excludes the cached parts). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export type WireContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | Array<{ type: string; text?: string }>;
      is_error?: boolean | null;
    }
  | { type: 'image'; source?: unknown }
  | { type: string };

export interface WireAssistantMessage {
  type: 'assistant';
  message: {
    id: string;
    model?: string;
    content: WireContentBlock[];
    stop_reason?: string | null;
    usage?: WireUsage | null;
  };
  parent_tool_use_id: string | null;
  /** Set on synthetic API-error messages (model "<synthetic>"). */
  error?: string;
  session_id?: string;
  uuid?: string;
}

export interface WireUserMessage {
  type: 'user';
  message: { role: string; content: string | WireContentBlock[] };
  parent_tool_use_id: string | null;
  /** Structured result of the tool (Bash: stdout/stderr/interrupted; Write: type/filePath; ...). */
  tool_use_result?: unknown;
  isSynthetic?: boolean;
  isReplay?: boolean;
  session_id?: string;
  uuid?: string;
}

/** Anthropic SSE events, passed through by the CLI with --include-partial-messages (ping dropped). */
export type WireStreamEvent =
  | { type: 'message_start'; message: { id: string; model?: string; usage?: WireUsage } }
  | {
      type: 'content_block_start';
      index: number;
      content_block: { type: string; id?: string; name?: string; text?: string; thinking?: string };
    }
  | {
      type: 'content_block_delta';
      index: number;
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'thinking_delta'; thinking: string }
        | { type: 'input_json_delta'; partial_json: string }
        | { type: 'signature_delta'; signature: string }
        | { type: string };
    }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta?: { stop_reason?: string | null }; usage?: WireUsage }
  | { type: 'message_stop' };

export interface WirePartialMessage {
  type: 'stream_event';
  event: WireStreamEvent | { type: string };
  parent_tool_use_id: string | null;
  session_id?: string;
}

export interface WireInit {
  type: 'system';
  subtype: 'init';
  session_id: string;
  model?: string;
  tools?: string[];
  permissionMode?: string;
  apiKeySource?: string;
  claude_code_version?: string;
  cwd?: string;
}

export interface WireCompactBoundary {
  type: 'system';
  subtype: 'compact_boundary';
  compact_metadata?: { trigger?: string; pre_tokens?: number; post_tokens?: number } | null;
}

export interface WireApiRetry {
  type: 'system';
  subtype: 'api_retry';
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
  error?: string;
}

export interface WireModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  costUSD?: number;
  contextWindow?: number;
}

export interface WireResult {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result?: string;
  errors?: string[];
  stop_reason?: string | null;
  terminal_reason?: string;
  api_error_status?: number | null;
  /** Tokens of this user turn (all its API calls). */
  usage?: WireUsage;
  /** Per model, cumulative over the process (2.1.197). */
  modelUsage?: Record<string, WireModelUsage>;
  /** Cumulative over the process (2.1.197), not per turn. */
  total_cost_usd?: number;
  structured_output?: unknown;
  session_id?: string;
  /** Per model, this turn only: every call since the previous result, subagents included (2.1.332). */
  model_usage_since_last_result?: Record<string, WireModelUsage>;
  /** User sends still queued in the CLI when this result was written (2.1.332). */
  queued_turn_count?: number;
}

/** Claude Code 2.1.332: a task starts (a subagent, a shell, ...); a Task subagent may run in the background. */
export interface WireTaskStarted {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  /** The tool call that started it (the Task call of a subagent). */
  tool_use_id?: string;
  description: string;
  /** True: the task runs past the tool call that started it (and past its turn). */
  is_backgrounded?: boolean;
  task_type?: string;
  ambient?: boolean;
}

/** Claude Code 2.1.332: a task changed; `patch.is_backgrounded` moves a foreground task to the background. */
export interface WireTaskUpdated {
  type: 'system';
  subtype: 'task_updated';
  task_id: string;
  patch: { status?: string; is_backgrounded?: boolean; error?: string };
}

/** Claude Code 2.1.197 and 2.1.332: a task ended. */
export interface WireTaskNotification {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  tool_use_id?: string;
  status: 'completed' | 'failed' | 'stopped';
  summary: string;
  usage?: { total_tokens: number; tool_uses: number; duration_ms: number };
  ambient?: boolean;
}

/** Claude Code 2.1.332: the whole set of live background tasks, sent whenever it changes (replace, never merge). */
export interface WireBackgroundTasksChanged {
  type: 'system';
  subtype: 'background_tasks_changed';
  tasks: Array<{ task_id: string; description: string; task_type: string; ambient?: boolean }>;
}
