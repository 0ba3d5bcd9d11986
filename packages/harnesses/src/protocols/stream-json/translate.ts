// Pure translation of Claude-compatible stream-json frames (Claude Code's stdout, which the Agent SDK
// hands over 1:1 as SDKMessages) into Reins event payloads: `translateFrame(state, frame)` returns
// what to emit and mutates only `state`. No process, no I/O; the Claude Code adapter owns the turn
// lifecycle and the Amp adapter can reuse this with its own options (source name, tool kinds,
// which key sources are metered).
//
// Facts the mapping rests on (Claude Code 2.1.197; 2.1.332 the same unless noted):
// - `assistant` carries ONE content block per message; all blocks of one API message share
//   `message.id`, in content order, so the k-th assistant frame of a message id is block index k,
//   the same index the `stream_event` content_block_* events use. With partial messages the
//   assistant frame for a block arrives after its deltas and before its content_block_stop.
// - Provider errors arrive as a synthetic assistant message (`model: "<synthetic>"`, top-level
//   `error`), followed by `result` with is_error.
// - `result` is exactly one per user turn. Its `usage` counts this turn; `modelUsage` and
//   `total_cost_usd` are cumulative over the process (not the turn). 2.1.332: `usage` is the main
//   loop only, `model_usage_since_last_result` counts the whole turn per model (subagents too), and a
//   turn Claude Code starts by itself (after a background task ended, tasks.ts) has its own `result`.
import {
  type ErrorInfo,
  type EventPayload,
  type FileChange,
  type Item,
  type PlanEntry,
  type TokenUsage,
  type ToolCallItem,
  type ToolKind,
  type Usage,
  unsupportedModelError,
} from '@reins/core';
import {
  backgroundLaunch,
  createTaskState,
  inBackgroundLanes,
  retainBackgroundLanes,
  type TaskState,
  translateTaskFrame,
  turnEndedForTasks,
} from './tasks.js';
import type {
  WireApiRetry,
  WireAssistantMessage,
  WireCompactBoundary,
  WireContentBlock,
  WireInit,
  WirePartialMessage,
  WireResult,
  WireStreamEvent,
  WireUsage,
  WireUserMessage,
} from './wire.js';

export interface StreamJsonOptions {
  /** `native.source` of the events: 'claude.stream-json', 'amp.stream-json'. */
  source: string;
  /** Tool name -> tool kind; default: Claude Code's tool names. */
  classifyTool?: (name: string) => ToolKind | 'plan';
  /** Whether an `apiKeySource` bills a metered API key (default: Claude Code's names). */
  isMeteredKeySource?: (apiKeySource: string) => boolean;
}

/** One thing to emit: the payload plus the subagent lane it belongs to. */
export interface Emission {
  payload: EventPayload;
  parentItemId?: string;
  /** Background work whose launching turn has ended (tasks.ts): emitted outside any turn. */
  background?: boolean;
}

interface BlockState {
  itemId: string;
  kind: 'text' | 'reasoning' | 'tool' | 'plan';
  completed: boolean;
}

export interface SessionFacts {
  nativeSessionId?: string;
  model?: string;
  tools?: string[];
  apiKeySource?: string;
  mode?: string;
  harnessVersion?: string;
}

export interface TranslationState {
  readonly options: Required<StreamJsonOptions>;
  /** What the harness last reported about the session (init). */
  facts: SessionFacts;
  meteredNoticeSent: boolean;
  /** Current API message id per lane ('' = the main thread, else parent_tool_use_id). */
  currentMessage: Map<string, string>;
  /** `${messageId}:${index}` -> the item made from that block. */
  blocks: Map<string, BlockState>;
  /** Assistant frames seen per message id (= next block index). */
  assistantFrames: Map<string, number>;
  /** Tool calls (and TodoWrite plans) of this turn by tool_use id. */
  tools: Map<string, ToolCallItem | { kind: 'plan'; id: string; entries: PlanEntry[] }>;
  /** Tool use ids the client (or a deadline) refused: their results settle as `declined`. */
  declined: Set<string>;
  /** A provider error reported by a synthetic assistant message in this turn. */
  turnError: ErrorInfo | undefined;
  /** Set by the adapter when it asked the harness to stop the running turn. */
  interruptRequested: boolean;
  /** Prompt size of the last main-thread API call (input + cache), the context in use. */
  contextUsed: number | undefined;
  compactions: number;
  /** Tasks that run past their turn (tasks.ts). */
  tasks: TaskState;
  /** API message id -> its lane ('' = the main thread), so a turn's reset keeps background lanes. */
  messageLanes: Map<string, string>;
}

export function defaultClassifyTool(name: string): ToolKind | 'plan' {
  if (name.startsWith('mcp__')) return 'mcp';
  switch (name) {
    case 'Bash':
      return 'command';
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return 'file_change';
    case 'Task':
    case 'Agent':
      return 'subagent';
    case 'WebSearch':
    case 'WebFetch':
      return 'web_search';
    case 'TodoWrite':
      return 'plan';
    default:
      return 'other';
  }
}

/** API keys bill per token; "none" (subscription login / OAuth) does not. */
export function defaultIsMeteredKeySource(source: string): boolean {
  return /api[_-]?key/i.test(source);
}

export function createTranslationState(options: StreamJsonOptions): TranslationState {
  return {
    options: {
      source: options.source,
      classifyTool: options.classifyTool ?? defaultClassifyTool,
      isMeteredKeySource: options.isMeteredKeySource ?? defaultIsMeteredKeySource,
    },
    facts: {},
    meteredNoticeSent: false,
    currentMessage: new Map(),
    blocks: new Map(),
    assistantFrames: new Map(),
    tools: new Map(),
    declined: new Set(),
    turnError: undefined,
    interruptRequested: false,
    contextUsed: undefined,
    compactions: 0,
    tasks: createTaskState(),
    messageLanes: new Map(),
  };
}

/** Forget per-turn bookkeeping (call after a turn's terminal). */
export function resetTurnState(state: TranslationState): void {
  // Background work outlives the turn: its lanes stay (tasks.ts), everything else is forgotten.
  retainBackgroundLanes(state);
  state.declined.clear();
  state.turnError = undefined;
  state.interruptRequested = false;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

function passthrough(frame: unknown, parentItemId?: string): Emission[] {
  return [withLane({ type: 'passthrough', frame }, parentItemId)];
}

function withLane(payload: EventPayload, parentItemId: string | undefined): Emission {
  return parentItemId === undefined ? { payload } : { payload, parentItemId };
}

/** Translates one native frame. Unknown frames become passthrough; nothing is dropped unseen. */
export function translateFrame(state: TranslationState, frame: unknown): Emission[] {
  return inBackgroundLanes(state.tasks, translateNative(state, frame));
}

function translateNative(state: TranslationState, frame: unknown): Emission[] {
  if (!isObject(frame) || typeof frame.type !== 'string') return passthrough(frame);
  switch (frame.type) {
    case 'system':
      return translateSystem(state, frame);
    case 'stream_event':
      return translateStreamEvent(state, frame as unknown as WirePartialMessage);
    case 'assistant':
      return translateAssistant(state, frame as unknown as WireAssistantMessage);
    case 'user':
      return translateUser(state, frame as unknown as WireUserMessage);
    case 'result':
      return translateResult(state, frame as unknown as WireResult);
    default:
      return passthrough(frame);
  }
}

function translateSystem(state: TranslationState, frame: JsonObject): Emission[] {
  switch (frame.subtype) {
    case 'init':
      return translateInit(state, frame as unknown as WireInit);
    case 'compact_boundary': {
      const metadata = (frame as unknown as WireCompactBoundary).compact_metadata ?? {};
      state.compactions++;
      const item: Item = {
        kind: 'compaction',
        id: typeof frame.uuid === 'string' ? frame.uuid : `compaction_${state.compactions}`,
        status: 'completed',
        ...(typeof metadata.trigger === 'string' ? { trigger: metadata.trigger } : {}),
        ...(num(metadata.pre_tokens) !== undefined ? { preTokens: metadata.pre_tokens } : {}),
        ...(num(metadata.post_tokens) !== undefined ? { postTokens: metadata.post_tokens } : {}),
      };
      return [
        { payload: { type: 'item.started', item: { ...item, status: 'running' } } },
        { payload: { type: 'item.completed', item } },
      ];
    }
    case 'api_retry': {
      const retry = frame as unknown as WireApiRetry;
      const status = retry.error_status ?? 'no status';
      const delay = num(retry.retry_delay_ms);
      return [
        {
          payload: {
            type: 'notice',
            kind: 'retry',
            message:
              `The provider request failed (${status}${retry.error ? `, ${retry.error}` : ''}); ` +
              `retry ${retry.attempt ?? '?'} of ${retry.max_retries ?? '?'}` +
              (delay !== undefined ? ` in ${Math.round(delay)} ms.` : '.'),
            data: {
              attempt: retry.attempt,
              maxRetries: retry.max_retries,
              retryDelayMs: delay,
              errorStatus: retry.error_status,
              error: retry.error,
            },
          },
        },
      ];
    }
    default:
      return translateTaskFrame(state, frame) ?? passthrough(frame);
  }
}

function translateInit(state: TranslationState, init: WireInit): Emission[] {
  const out: Emission[] = [];
  const facts = state.facts;
  const update: EventPayload & { type: 'session.updated' } = { type: 'session.updated' };
  let changed = false;
  if (typeof init.session_id === 'string' && init.session_id !== facts.nativeSessionId) {
    facts.nativeSessionId = update.nativeSessionId = init.session_id;
    changed = true;
  }
  if (typeof init.model === 'string' && init.model !== facts.model) {
    facts.model = update.model = init.model;
    changed = true;
  }
  if (Array.isArray(init.tools) && JSON.stringify(init.tools) !== JSON.stringify(facts.tools)) {
    facts.tools = update.tools = [...init.tools];
    changed = true;
  }
  if (typeof init.apiKeySource === 'string' && init.apiKeySource !== facts.apiKeySource) {
    facts.apiKeySource = update.apiKeySource = init.apiKeySource;
    changed = true;
  }
  if (typeof init.permissionMode === 'string' && init.permissionMode !== facts.mode) {
    facts.mode = update.mode = init.permissionMode;
    changed = true;
  }
  if (typeof init.claude_code_version === 'string') facts.harnessVersion = init.claude_code_version;
  if (changed) out.push({ payload: update });
  if (
    typeof init.apiKeySource === 'string' &&
    !state.meteredNoticeSent &&
    state.options.isMeteredKeySource(init.apiKeySource)
  ) {
    state.meteredNoticeSent = true;
    out.push({
      payload: {
        type: 'notice',
        kind: 'metered_key',
        message:
          `The harness is billing the API key from ${init.apiKeySource} per token, ` +
          'not a subscription; unset it to use your login instead.',
        data: { apiKeySource: init.apiKeySource },
      },
    });
  }
  return out;
}

function laneOf(frame: { parent_tool_use_id?: string | null }): string | undefined {
  return typeof frame.parent_tool_use_id === 'string' ? frame.parent_tool_use_id : undefined;
}

function promptTokens(usage: WireUsage | null | undefined): number | undefined {
  if (!usage || num(usage.input_tokens) === undefined) return undefined;
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

function translateStreamEvent(state: TranslationState, frame: WirePartialMessage): Emission[] {
  const lane = laneOf(frame);
  const laneKey = lane ?? '';
  const event = frame.event as WireStreamEvent;
  if (!isObject(event)) return passthrough(frame, lane);
  switch (event.type) {
    case 'message_start': {
      state.currentMessage.set(laneKey, event.message.id);
      state.messageLanes.set(event.message.id, laneKey);
      if (lane === undefined) state.contextUsed = promptTokens(event.message.usage) ?? state.contextUsed;
      return [];
    }
    case 'content_block_start': {
      const messageId = state.currentMessage.get(laneKey);
      if (messageId === undefined) return passthrough(frame, lane);
      const block = event.content_block;
      const key = `${messageId}:${event.index}`;
      if (block.type === 'text' || block.type === 'thinking') {
        const kind = block.type === 'text' ? 'text' : 'reasoning';
        state.blocks.set(key, { itemId: key, kind, completed: false });
        const item: Item =
          kind === 'text'
            ? { kind: 'agent_message', id: key, status: 'running', text: '' }
            : { kind: 'reasoning', id: key, status: 'running', text: '' };
        return [withLane({ type: 'item.started', item }, lane)];
      }
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        const kind = state.options.classifyTool(block.name);
        state.blocks.set(key, { itemId: block.id, kind: kind === 'plan' ? 'plan' : 'tool', completed: false });
        // A plan is announced once its entries are known (the assistant frame), not empty.
        if (kind === 'plan') return [];
        const item = startTool(state, block.id, block.name, kind, {});
        return [withLane({ type: 'item.started', item }, lane)];
      }
      return passthrough(frame, lane);
    }
    case 'content_block_delta': {
      const messageId = state.currentMessage.get(laneKey);
      const block = messageId === undefined ? undefined : state.blocks.get(`${messageId}:${event.index}`);
      if (!block) return passthrough(frame, lane);
      const delta = event.delta as { type: string; text?: string; thinking?: string; partial_json?: string };
      if (delta.type === 'text_delta' && typeof delta.text === 'string') {
        return [withLane({ type: 'item.delta', itemId: block.itemId, kind: 'text', text: delta.text }, lane)];
      }
      if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
        return [withLane({ type: 'item.delta', itemId: block.itemId, kind: 'reasoning', text: delta.thinking }, lane)];
      }
      if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
        if (block.kind === 'plan') return [];
        return [
          withLane({ type: 'item.delta', itemId: block.itemId, kind: 'tool_input', text: delta.partial_json }, lane),
        ];
      }
      // signature_delta authenticates a thinking block for the API; nothing to show.
      if (delta.type === 'signature_delta') return [];
      return passthrough(frame, lane);
    }
    // Block and message boundaries: the assistant frame and `result` carry the truth for these.
    case 'content_block_stop':
    case 'message_stop':
      return [];
    case 'message_delta':
      return [];
    default:
      return passthrough(frame, lane);
  }
}

function toolTitle(kind: ToolKind, input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  if (kind === 'command' && typeof input.command === 'string') return input.command;
  if (kind === 'file_change') {
    const path = input.file_path ?? input.notebook_path;
    if (typeof path === 'string') return path;
  }
  if (kind === 'subagent' && typeof input.description === 'string') return input.description;
  if (kind === 'web_search') {
    const target = input.query ?? input.url;
    if (typeof target === 'string') return target;
  }
  return undefined;
}

function startTool(state: TranslationState, id: string, name: string, kind: ToolKind, input: unknown): ToolCallItem {
  const title = toolTitle(kind, input);
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status: 'running',
    tool: { kind, name, ...(title ? { title } : {}) },
    input,
  };
  state.tools.set(id, item);
  return item;
}

function planEntries(input: unknown): PlanEntry[] {
  const todos = isObject(input) && Array.isArray(input.todos) ? input.todos : [];
  return todos.filter(isObject).map((todo) => ({
    text: typeof todo.content === 'string' ? todo.content : String(todo.activeForm ?? ''),
    status: todo.status === 'completed' || todo.status === 'in_progress' ? todo.status : 'pending',
  }));
}

/** Maps the CLI's synthetic-error kinds (SDKAssistantMessageError) to Reins errors. */
export function mapAssistantError(
  kind: string,
  text: string,
  apiErrorStatus: number | undefined,
  model: string | undefined,
): ErrorInfo {
  const data = { harnessError: kind, ...(apiErrorStatus !== undefined ? { status: apiErrorStatus } : {}) };
  switch (kind) {
    case 'authentication_failed':
      return { code: 'auth_required', message: text || 'The provider refused the credentials.', data };
    case 'rate_limit':
      return { code: 'provider_error', message: text, retryable: true, data: { ...data, kind: 'rate_limited' } };
    case 'server_error':
      return {
        code: 'provider_error',
        message: text,
        retryable: true,
        data: { ...data, kind: apiErrorStatus === 529 ? 'overloaded' : 'server_error' },
      };
    case 'model_not_found': {
      // 2.1.197: "There's an issue with the selected model (NAME). It may not exist ..."
      const named = /selected model \(([^)]+)\)/.exec(text)?.[1] ?? model ?? 'unknown';
      const info = unsupportedModelError(named, text).toInfo();
      return { ...info, data: { ...info.data, ...data } };
    }
    case 'billing_error':
      return { code: 'provider_error', message: text, data: { ...data, kind: 'unknown' } };
    case 'invalid_request':
      return { code: 'provider_error', message: text, data: { ...data, kind: 'bad_request' } };
    default: {
      const providerKind = /prompt is too long|context window/i.test(text)
        ? 'context_window_exceeded'
        : apiErrorStatus === 400
          ? 'bad_request'
          : 'unknown';
      return { code: 'provider_error', message: text, data: { ...data, kind: providerKind } };
    }
  }
}

function blockText(content: WireContentBlock[] | string): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => (block.type === 'text' ? String((block as { text?: unknown }).text ?? '') : ''))
    .join('');
}

function translateAssistant(state: TranslationState, frame: WireAssistantMessage): Emission[] {
  const lane = laneOf(frame);
  const message = frame.message;
  if (!isObject(message) || !Array.isArray(message.content)) return passthrough(frame, lane);
  // A synthetic message WITH a top-level error is a provider failure; without one it is the CLI
  // speaking for itself ("Not enough messages to compact.", 2.1.197) and shows as agent text.
  if (typeof frame.error === 'string') {
    const status = num((frame as unknown as JsonObject).api_error_status);
    const error = mapAssistantError(frame.error ?? 'unknown', blockText(message.content), status, state.facts.model);
    if (lane === undefined) state.turnError = error;
    return [withLane({ type: 'error', ...error, fatal: false }, lane)];
  }
  if (lane === undefined) state.contextUsed = promptTokens(message.usage) ?? state.contextUsed;
  state.messageLanes.set(message.id, lane ?? '');
  const out: Emission[] = [];
  const first = state.assistantFrames.get(message.id) ?? 0;
  state.assistantFrames.set(message.id, first + message.content.length);
  message.content.forEach((block, offset) => {
    const key = `${message.id}:${first + offset}`;
    const known = state.blocks.get(key);
    if (block.type === 'text' || block.type === 'thinking' || block.type === 'redacted_thinking') {
      const text =
        block.type === 'text'
          ? String((block as { text: string }).text)
          : block.type === 'thinking'
            ? String((block as { thinking: string }).thinking)
            : '';
      const item: Item =
        block.type === 'text'
          ? { kind: 'agent_message', id: key, status: 'completed', text }
          : { kind: 'reasoning', id: key, status: 'completed', text };
      if (known?.completed) return;
      if (!known) out.push(withLane({ type: 'item.started', item: { ...item, status: 'running', text: '' } }, lane));
      state.blocks.set(key, { itemId: key, kind: block.type === 'text' ? 'text' : 'reasoning', completed: true });
      out.push(withLane({ type: 'item.completed', item }, lane));
      return;
    }
    if (block.type === 'tool_use') {
      const use = block as { id: string; name: string; input: unknown };
      const kind = state.options.classifyTool(use.name);
      if (kind === 'plan') {
        const plan = { kind: 'plan' as const, id: use.id, entries: planEntries(use.input) };
        state.tools.set(use.id, plan);
        state.blocks.set(key, { itemId: use.id, kind: 'plan', completed: true });
        out.push(withLane({ type: 'item.started', item: { ...plan, status: 'running' } }, lane));
        return;
      }
      const existing = state.tools.get(use.id);
      if (existing && existing.kind === 'tool_call') {
        // Streamed: the start went out with an empty input; the completed item carries the full one.
        existing.input = use.input;
        const title = toolTitle(kind, use.input);
        if (title) existing.tool = { ...existing.tool, title };
      } else {
        const item = startTool(state, use.id, use.name, kind, use.input);
        out.push(withLane({ type: 'item.started', item }, lane));
      }
      state.blocks.set(key, { itemId: use.id, kind: 'tool', completed: true });
      return;
    }
    out.push(...passthrough(frame, lane));
  });
  return out;
}

const INTERRUPT_MARKER = /^\[Request interrupted by user/;

function resultText(block: { content?: string | Array<{ type: string; text?: string }> }): string {
  if (typeof block.content === 'string') return block.content;
  if (!Array.isArray(block.content)) return '';
  return block.content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function fileChanges(item: ToolCallItem, structured: unknown): FileChange[] | undefined {
  const input = isObject(item.input) ? item.input : {};
  const path = input.file_path ?? input.notebook_path;
  if (typeof path !== 'string') return undefined;
  if (item.tool.name === 'Write') {
    // The Write result says whether it created or replaced the file.
    const type = isObject(structured) ? structured.type : undefined;
    return [{ path, kind: type === 'update' ? 'update' : 'add' }];
  }
  return [{ path, kind: 'update' }];
}

function translateUser(state: TranslationState, frame: WireUserMessage): Emission[] {
  const lane = laneOf(frame);
  const content = isObject(frame.message) ? frame.message.content : undefined;
  // Prompts echoed back, interrupt markers, synthetic nudges and replays are never user input here:
  // the adapter announced the real input itself when the turn started.
  if (!Array.isArray(content)) return passthrough(frame, lane);
  const results = content.filter(
    (block): block is Extract<WireContentBlock, { type: 'tool_result' }> =>
      block.type === 'tool_result' && typeof (block as { tool_use_id?: unknown }).tool_use_id === 'string',
  );
  if (results.length === 0) return passthrough(frame, lane);
  const out: Emission[] = [];
  let unmatched = results.length !== content.length;
  for (const block of results) {
    const tool = state.tools.get(block.tool_use_id);
    if (!tool) {
      unmatched = true;
      continue;
    }
    const text = resultText(block);
    const structured = results.length === 1 ? frame.tool_use_result : undefined;
    // A Task whose subagent runs in the background is not done yet (tasks.ts).
    const launch = backgroundLaunch(state, block.tool_use_id, structured, frame);
    if (launch) {
      out.push(...launch.map((emission) => withLane(emission.payload, lane)));
      continue;
    }
    // An interrupted tool reports an error result ("The user doesn't want to proceed...", 2.1.197).
    const interrupted =
      INTERRUPT_MARKER.test(text) ||
      (block.is_error === true &&
        (state.interruptRequested || (isObject(structured) && structured.interrupted === true)));
    const status = state.declined.has(block.tool_use_id)
      ? 'declined'
      : interrupted
        ? 'cancelled'
        : block.is_error
          ? 'failed'
          : 'completed';
    state.tools.delete(block.tool_use_id);
    if (tool.kind === 'plan') {
      out.push(withLane({ type: 'item.completed', item: { ...tool, status } }, lane));
      continue;
    }
    const item: ToolCallItem = {
      ...tool,
      status,
      output: { text, ...(structured !== undefined ? { structured } : {}) },
    };
    if (tool.tool.kind === 'command' && status !== 'cancelled' && status !== 'declined') {
      // Claude Code reports a non-zero exit as an error result starting "Exit code N" and a
      // zero exit as a plain result (2.1.197).
      const code = block.is_error ? /^Exit code (\d+)/.exec(text)?.[1] : '0';
      if (code !== undefined) item.exitCode = Number(code);
    }
    if (tool.tool.kind === 'file_change' && status === 'completed') {
      const changes = fileChanges(tool, structured);
      if (changes) item.changes = changes;
    }
    out.push(withLane({ type: 'item.completed', item }, lane));
  }
  if (unmatched) out.push(...passthrough(frame, lane));
  return out;
}

function tokenUsage(usage: WireUsage | undefined): TokenUsage | undefined {
  if (!usage || num(usage.input_tokens) === undefined) return undefined;
  const cacheRead = num(usage.cache_read_input_tokens);
  const cacheWrite = num(usage.cache_creation_input_tokens);
  const result: TokenUsage = {
    // Anthropic's input_tokens exclude the cached parts; Reins' input is the whole prompt.
    input: (usage.input_tokens ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
  };
  if (cacheRead !== undefined) result.cachedInput = cacheRead;
  if (cacheWrite !== undefined) result.cacheWrite = cacheWrite;
  if (num(usage.output_tokens) !== undefined) result.output = usage.output_tokens ?? 0;
  return result;
}

/** Usage of a `result` frame: this turn's tokens, process totals, context window and cost. */
export function resultUsage(state: TranslationState, result: WireResult): Usage | undefined {
  const usage: Usage = {};
  // 2.1.332 counts the turn per model, subagents included; `usage` is the main loop only.
  const turn = modelTokens(result.model_usage_since_last_result) ?? tokenUsage(result.usage);
  if (turn) usage.turn = turn;
  const models = isObject(result.modelUsage) ? Object.entries(result.modelUsage) : [];
  if (models.length > 0) {
    const total = modelTokens(result.modelUsage);
    if (total) usage.total = total;
    // The window of the model in use, else of the only model reported.
    const current =
      models.find(([name]) => name === state.facts.model) ?? (models.length === 1 ? models[0] : undefined);
    const window = current ? num(current[1].contextWindow) : undefined;
    if (window !== undefined || state.contextUsed !== undefined) {
      usage.context = {
        ...(state.contextUsed !== undefined ? { used: state.contextUsed } : {}),
        ...(window !== undefined ? { window } : {}),
      };
    }
  }
  const cost = num(result.total_cost_usd);
  if (cost !== undefined) usage.costUsd = { amount: cost, currency: 'USD', source: 'provider' };
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** Tokens summed over a per-model usage map (modelUsage, model_usage_since_last_result); undefined when empty. */
function modelTokens(byModel: WireResult['modelUsage']): TokenUsage | undefined {
  const models = isObject(byModel) ? Object.values(byModel).filter(isObject) : [];
  if (models.length === 0) return undefined;
  const total: TokenUsage = {};
  for (const model of models) {
    const cacheRead = num(model.cacheReadInputTokens) ?? 0;
    const cacheWrite = num(model.cacheCreationInputTokens) ?? 0;
    total.input = (total.input ?? 0) + (num(model.inputTokens) ?? 0) + cacheRead + cacheWrite;
    total.cachedInput = (total.cachedInput ?? 0) + cacheRead;
    total.cacheWrite = (total.cacheWrite ?? 0) + cacheWrite;
    total.output = (total.output ?? 0) + (num(model.outputTokens) ?? 0);
  }
  return total;
}

/** The outcome of a turn from its `result` frame and what the turn showed before it. */
export function resultOutcome(state: TranslationState, result: WireResult): ErrorInfo | 'completed' | 'cancelled' {
  const errors = Array.isArray(result.errors) ? result.errors.filter((e) => typeof e === 'string') : [];
  const detail = errors.join('; ') || (typeof result.result === 'string' ? result.result : '');
  if (errors.some((error) => /No conversation found/i.test(error))) {
    return {
      code: 'resume_failed',
      message: `Claude Code could not resume the conversation: ${detail}`,
      data: { subtype: result.subtype },
    };
  }
  if (
    state.interruptRequested ||
    result.terminal_reason === 'aborted_streaming' ||
    result.terminal_reason === 'aborted_tools'
  ) {
    return 'cancelled';
  }
  if (result.subtype === 'success' && !result.is_error) return 'completed';
  if (state.turnError) return state.turnError;
  if (result.subtype === 'error_max_structured_output_retries') {
    return {
      code: 'structured_output_invalid',
      message: `Claude Code gave up producing output that matches the schema: ${detail}`,
      data: { subtype: result.subtype, errors },
    };
  }
  const status = num(result.api_error_status);
  if (status !== undefined) {
    return {
      code: 'provider_error',
      message: detail || `The provider answered ${status}.`,
      data: { status, kind: status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'unknown' },
    };
  }
  return {
    code: 'harness_unhealthy',
    message: `Claude Code ended the turn with ${result.subtype}${detail ? `: ${detail}` : ''}`,
    data: { subtype: result.subtype, errors },
  };
}

function translateResult(state: TranslationState, result: WireResult): Emission[] {
  const usage = resultUsage(state, result);
  const outcome = resultOutcome(state, result);
  const out: Emission[] = [];
  if (usage) out.push({ payload: { type: 'usage.updated', ...usage } });
  out.push({
    payload: {
      type: 'turn.completed',
      outcome:
        outcome === 'completed' || outcome === 'cancelled' ? { status: outcome } : { status: 'failed', error: outcome },
      ...(usage ? { usage } : {}),
      ...(result.structured_output !== undefined ? { structuredOutput: result.structured_output } : {}),
      ...(typeof result.stop_reason === 'string' ? { stopReason: result.stop_reason } : {}),
    },
  });
  turnEndedForTasks(state.tasks);
  resetTurnState(state);
  return out;
}
