// Pi `--mode rpc` wire types (JSONL on stdin/stdout), mirrored from the .d.ts files Pi publishes
// (@mariozechner/pi-coding-agent 0.73.1 dist/modes/rpc/rpc-types.d.ts, pi-agent-core and pi-ai
// types). Pi publishes TypeScript types, not a JSON schema, so there is nothing to generate from;
// only the members Reins reads are spelled out, and the frame envelope is validated with zod
// where it crosses the process boundary.
import { z } from 'zod';

// ---- content and messages (pi-ai 0.73.1) ----
export interface PiTextContent {
  type: 'text';
  text: string;
}
export interface PiImageContent {
  type: 'image';
  data: string;
  mimeType: string;
}
export interface PiThinkingContent {
  type: 'thinking';
  thinking: string;
}
export interface PiToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
export type PiAssistantContent = PiTextContent | PiThinkingContent | PiToolCall;

export interface PiUsageCost {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  total?: number;
}
export interface PiUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: PiUsageCost;
}

export type PiStopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface PiUserMessage {
  role: 'user';
  content: string | (PiTextContent | PiImageContent)[];
  timestamp?: number;
}
export interface PiAssistantMessage {
  role: 'assistant';
  content: PiAssistantContent[];
  api?: string;
  provider?: string;
  model?: string;
  usage?: PiUsage;
  stopReason?: PiStopReason;
  errorMessage?: string;
  timestamp?: number;
}
export interface PiToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: (PiTextContent | PiImageContent)[];
  details?: unknown;
  isError?: boolean;
  timestamp?: number;
}
/** bashExecution, custom, compactionSummary, branchSummary: kept as they come. */
export interface PiOtherMessage {
  role: string;
  [key: string]: unknown;
}
export type PiMessage = PiUserMessage | PiAssistantMessage | PiToolResultMessage | PiOtherMessage;

export interface PiModel {
  id: string;
  name?: string;
  provider: string;
  api?: string;
  reasoning?: boolean;
  contextWindow?: number;
  maxTokens?: number;
}

// ---- commands (stdin) ----
export type PiThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

export type PiCommand =
  | {
      id?: string;
      type: 'prompt';
      message: string;
      images?: PiImageContent[];
      streamingBehavior?: 'steer' | 'followUp';
    }
  | { id?: string; type: 'steer'; message: string; images?: PiImageContent[] }
  | { id?: string; type: 'follow_up'; message: string; images?: PiImageContent[] }
  | { id?: string; type: 'abort' }
  | { id?: string; type: 'get_state' }
  | { id?: string; type: 'get_messages' }
  | { id?: string; type: 'get_available_models' }
  | { id?: string; type: 'set_model'; provider: string; modelId: string }
  | { id?: string; type: 'set_thinking_level'; level: PiThinkingLevel }
  | { id?: string; type: 'set_auto_retry'; enabled: boolean }
  | { id?: string; type: 'get_session_stats' }
  | { id?: string; type: 'get_fork_messages' }
  | { id?: string; type: 'fork'; entryId: string }
  | { id?: string; type: 'compact'; customInstructions?: string };

/** Answer to a dialog `extension_ui_request` (select, confirm, input, editor). */
export interface PiExtensionUiResponse {
  type: 'extension_ui_response';
  id: string;
  cancelled: true;
}

// ---- responses and state ----
export interface PiResponse {
  type: 'response';
  id?: string;
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
}

export interface PiSessionState {
  model?: PiModel | null;
  thinkingLevel?: PiThinkingLevel;
  isStreaming?: boolean;
  isCompacting?: boolean;
  sessionFile?: string;
  sessionId: string;
  sessionName?: string;
  messageCount?: number;
  pendingMessageCount?: number;
}

// ---- events (stdout) ----
export type PiAssistantMessageEvent =
  | { type: 'start' }
  | { type: 'text_start' | 'thinking_start' | 'toolcall_start'; contentIndex: number }
  | { type: 'text_delta' | 'thinking_delta' | 'toolcall_delta'; contentIndex: number; delta: string }
  | { type: 'text_end' | 'thinking_end'; contentIndex: number; content: string }
  | { type: 'toolcall_end'; contentIndex: number; toolCall: PiToolCall }
  | { type: 'done'; reason?: string }
  | { type: 'error'; reason?: string };

export interface PiToolResult {
  content?: (PiTextContent | PiImageContent)[];
  details?: unknown;
}

export type PiEvent =
  | { type: 'agent_start' }
  | { type: 'agent_end'; messages: PiMessage[] }
  | { type: 'turn_start' }
  | { type: 'turn_end'; message?: PiMessage; toolResults?: PiToolResultMessage[] }
  | { type: 'message_start'; message: PiMessage }
  | { type: 'message_update'; message: PiAssistantMessage; assistantMessageEvent: PiAssistantMessageEvent }
  | { type: 'message_end'; message: PiMessage }
  | { type: 'tool_execution_start'; toolCallId: string; toolName: string; args?: Record<string, unknown> }
  | {
      type: 'tool_execution_update';
      toolCallId: string;
      toolName: string;
      args?: Record<string, unknown>;
      partialResult?: PiToolResult;
    }
  | {
      type: 'tool_execution_end';
      toolCallId: string;
      toolName: string;
      result?: PiToolResult;
      isError?: boolean;
    }
  | { type: 'queue_update'; steering?: string[]; followUp?: string[] }
  | { type: 'compaction_start'; reason?: string }
  | {
      type: 'compaction_end';
      reason?: string;
      result?: { summary?: string; tokensBefore?: number } | null;
      aborted?: boolean;
      willRetry?: boolean;
      errorMessage?: string;
    }
  | { type: 'auto_retry_start'; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  | { type: 'auto_retry_end'; success: boolean; attempt: number; finalError?: string }
  | { type: 'thinking_level_changed'; level: string }
  | { type: 'extension_error'; extensionPath?: string; event?: string; error?: string }
  | {
      type: 'extension_ui_request';
      id: string;
      method: string;
      title?: string;
      message?: string;
      [key: string]: unknown;
    };

export type PiEventType = PiEvent['type'];

/** Every event type Pi 0.73.1 documents; anything else is passed through. */
export const PI_EVENT_TYPES: ReadonlySet<string> = new Set<PiEventType>([
  'agent_start',
  'agent_end',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'message_end',
  'tool_execution_start',
  'tool_execution_update',
  'tool_execution_end',
  'queue_update',
  'compaction_start',
  'compaction_end',
  'auto_retry_start',
  'auto_retry_end',
  'thinking_level_changed',
  'extension_error',
  'extension_ui_request',
]);

/** The envelope check at the trust boundary: an object with a string `type`. */
export const PiFrameSchema = z.looseObject({ type: z.string() });

export const PiResponseSchema = z.looseObject({
  type: z.literal('response'),
  id: z.string().optional(),
  command: z.string(),
  success: z.boolean(),
  data: z.unknown().optional(),
  error: z.string().optional(),
});
