// Pure translation of Pi `--mode rpc` events into Reins event payloads, and the turn-boundary rule.
// No process here: the adapter feeds parsed frames in and emits what comes out.
//
// Turn boundary (Pi 0.73.1): every auto-retry attempt is a full agent run with its own agent_start /
// agent_end, and Pi decides whether to retry only AFTER it has written agent_end: it writes
// auto_retry_start (will retry) or auto_retry_end{success:false} (gave up) in the same synchronous
// step (agent-session.js _processAgentEvent), or nothing at all (not retryable / retry disabled).
// So agent_end only makes the end *pending*; the adapter then sends a barrier command (get_state).
// Pi reads that command only after the step that wrote agent_end has finished, so by the time its
// response arrives every retry decision for that agent_end has been read from stdout. `settleTurn`
// then emits the terminal if nothing reopened the turn. No timer is involved.
//
// Frames that carry nothing beyond what other events already say (turn_start, turn_end,
// message_update start/done/error, queue_update, message_start of an assistant) map to no event;
// unknown frames become passthrough.
import type { ErrorInfo, EventPayload, Item, ProviderErrorKind, TokenUsage, ToolCallItem, ToolKind } from '@reins/core';
import { assertNever } from '@reins/core';
import type {
  PiAssistantMessage,
  PiAssistantMessageEvent,
  PiEvent,
  PiMessage,
  PiToolCall,
  PiToolResult,
  PiToolResultMessage,
  PiUsage,
} from './wire.js';
import { PI_EVENT_TYPES } from './wire.js';

type BlockKind = 'text' | 'reasoning' | 'tool';

interface OpenBlock {
  itemId: string;
  kind: BlockKind;
}

interface PendingEnd {
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
  /** Set by agent_end; the terminal waits for the barrier (see header). */
  pendingEnd: PendingEnd | undefined;
  /** Between auto_retry_start and the next agent_end. */
  retrying: boolean;
  /** The client asked to stop: an error or a given-up retry then ends the turn as cancelled. */
  interruptRequested: boolean;
}

export function createPiTranslateState(): PiTranslateState {
  return {
    assistantCount: 0,
    userCount: 0,
    compactionCount: 0,
    blocks: new Map(),
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Translates one parsed stdout frame that is not a command response. */
export function translatePiFrame(state: PiTranslateState, frame: Record<string, unknown>): EventPayload[] {
  const type = frame.type;
  if (typeof type !== 'string' || !PI_EVENT_TYPES.has(type)) return [{ type: 'passthrough', frame }];
  return translateEvent(state, frame as unknown as PiEvent, frame);
}

function translateEvent(state: PiTranslateState, event: PiEvent, frame: Record<string, unknown>): EventPayload[] {
  switch (event.type) {
    case 'agent_start':
      state.retrying = false;
      return [{ type: 'session.status', status: 'running' }];
    case 'agent_end':
      return onAgentEnd(state, event.messages);
    case 'turn_start':
    case 'turn_end':
    case 'queue_update':
      return [];
    case 'message_start':
      return onMessageStart(state, event.message);
    case 'message_update':
      return onMessageUpdate(state, event.message, event.assistantMessageEvent, frame);
    case 'message_end':
      return onMessageEnd(state, event.message);
    case 'tool_execution_start':
      return onToolStart(state, event.toolCallId, event.toolName, event.args);
    case 'tool_execution_update':
      return onToolUpdate(state, event.toolCallId, event.toolName, event.args, event.partialResult);
    case 'tool_execution_end':
      return onToolEnd(state, event.toolCallId, event.toolName, event.result, event.isError === true);
    case 'compaction_start': {
      state.compactionCount++;
      const id = `pi-compaction-${state.compactionCount}`;
      state.openCompaction = id;
      return [
        {
          type: 'item.started',
          item: { kind: 'compaction', id, status: 'running', ...(event.reason ? { trigger: event.reason } : {}) },
        },
      ];
    }
    case 'compaction_end':
      return onCompactionEnd(state, event);
    case 'auto_retry_start':
      // The agent_end just seen was not the end of the turn: Pi runs the prompt again.
      state.pendingEnd = undefined;
      state.retrying = true;
      return [
        {
          type: 'notice',
          kind: 'retry',
          message: `Pi retries after an error (attempt ${event.attempt} of ${event.maxAttempts}, in ${event.delayMs} ms): ${event.errorMessage}`,
          data: { attempt: event.attempt, maxAttempts: event.maxAttempts, delayMs: event.delayMs },
        },
      ];
    case 'auto_retry_end':
      return onRetryEnd(state, event.success, event.attempt, event.finalError);
    case 'thinking_level_changed':
      return [{ type: 'session.updated', effort: event.level }];
    case 'extension_error':
      return [
        {
          type: 'notice',
          kind: 'warning',
          message: `A Pi extension failed${event.extensionPath ? ` (${event.extensionPath})` : ''}: ${event.error ?? 'unknown error'}`,
          data: frame,
        },
      ];
    case 'extension_ui_request':
      return onExtensionUi(event.method, frame);
    default:
      return assertNever(event);
  }
}

/** Dialogs block Pi until answered; the adapter answers them cancelled (Reins has no UI channel for them). */
export const PI_DIALOG_METHODS: ReadonlySet<string> = new Set(['select', 'confirm', 'input', 'editor']);

function onExtensionUi(method: string, frame: Record<string, unknown>): EventPayload[] {
  if (PI_DIALOG_METHODS.has(method)) {
    const title = typeof frame.title === 'string' ? `: ${frame.title}` : '';
    return [
      {
        type: 'notice',
        kind: 'warning',
        message: `A Pi extension asked for input (${method}${title}); Reins answered it as cancelled.`,
        data: frame,
      },
    ];
  }
  if (method === 'notify' && typeof frame.message === 'string') {
    return [{ type: 'notice', kind: frame.notifyType === 'warning' ? 'warning' : 'info', message: frame.message }];
  }
  return [{ type: 'passthrough', frame }];
}

function userText(message: PiMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is { type: 'text'; text: string } => isRecord(block) && block.type === 'text')
    .map((block) => block.text)
    .join('');
}

function onMessageStart(state: PiTranslateState, message: PiMessage): EventPayload[] {
  if (message.role === 'assistant') {
    state.assistantCount++;
    state.blocks.clear();
    return [];
  }
  if (message.role === 'user') {
    state.userCount++;
    const id = `pi-user-${state.userCount}`;
    state.openUserItem = id;
    return [{ type: 'item.started', item: { kind: 'user_message', id, status: 'running', text: userText(message) } }];
  }
  return [];
}

function onMessageEnd(state: PiTranslateState, message: PiMessage): EventPayload[] {
  if (message.role === 'user') {
    const id = state.openUserItem ?? `pi-user-${++state.userCount}`;
    state.openUserItem = undefined;
    return [
      { type: 'item.completed', item: { kind: 'user_message', id, status: 'completed', text: userText(message) } },
    ];
  }
  if (message.role !== 'assistant') return [];
  const assistant = message as PiAssistantMessage;
  const events: EventPayload[] = [];
  // Blocks Pi left without an *_end (aborted or failed stream): close them with what the message holds.
  const status =
    assistant.stopReason === 'aborted' ? 'cancelled' : assistant.stopReason === 'error' ? 'failed' : 'completed';
  for (const [index, block] of state.blocks) {
    if (block.kind === 'tool') continue;
    const content = assistant.content?.[index];
    events.push({ type: 'item.completed', item: blockItem(block, content, status) });
  }
  for (const [index, block] of state.blocks) if (block.kind !== 'tool') state.blocks.delete(index);
  if (assistant.stopReason !== 'error' && assistant.stopReason !== 'aborted') {
    const usage = addUsage(state, assistant.usage);
    if (usage) events.push(usage);
  }
  return events;
}

function blockItem(block: OpenBlock, content: unknown, status: 'completed' | 'cancelled' | 'failed'): Item {
  const text =
    isRecord(content) && typeof content.text === 'string'
      ? content.text
      : isRecord(content) && typeof content.thinking === 'string'
        ? content.thinking
        : '';
  return block.kind === 'reasoning'
    ? { kind: 'reasoning', id: block.itemId, status, text }
    : { kind: 'agent_message', id: block.itemId, status, text };
}

function onMessageUpdate(
  state: PiTranslateState,
  message: PiAssistantMessage,
  event: PiAssistantMessageEvent,
  frame: Record<string, unknown>,
): EventPayload[] {
  switch (event.type) {
    case 'start':
    case 'done':
    case 'error':
      return [];
    case 'text_start':
    case 'thinking_start':
      return openBlock(state, event.contentIndex, event.type === 'text_start' ? 'text' : 'reasoning').events;
    case 'text_delta':
    case 'thinking_delta': {
      const { block, events } = openBlock(
        state,
        event.contentIndex,
        event.type === 'text_delta' ? 'text' : 'reasoning',
      );
      if (event.delta) {
        events.push({
          type: 'item.delta',
          itemId: block.itemId,
          kind: block.kind === 'reasoning' ? 'reasoning' : 'text',
          text: event.delta,
        });
      }
      return events;
    }
    case 'text_end':
    case 'thinking_end': {
      const { block, events } = openBlock(state, event.contentIndex, event.type === 'text_end' ? 'text' : 'reasoning');
      state.blocks.delete(event.contentIndex);
      // Pi 0.73.1 still sends text_end after an abort; the message already says stopReason "aborted".
      const status =
        message?.stopReason === 'aborted' ? 'cancelled' : message?.stopReason === 'error' ? 'failed' : 'completed';
      const item: Item =
        block.kind === 'reasoning'
          ? { kind: 'reasoning', id: block.itemId, status, text: event.content }
          : { kind: 'agent_message', id: block.itemId, status, text: event.content };
      events.push({ type: 'item.completed', item });
      return events;
    }
    case 'toolcall_start':
    case 'toolcall_delta': {
      const call = message.content?.[event.contentIndex];
      if (!isRecord(call) || call.type !== 'toolCall' || typeof call.id !== 'string') return [];
      const events = startTool(state, call.id, String(call.name ?? ''), call.arguments);
      state.blocks.set(event.contentIndex, { itemId: call.id, kind: 'tool' });
      if (event.type === 'toolcall_delta' && event.delta) {
        events.push({ type: 'item.delta', itemId: call.id, kind: 'tool_input', text: event.delta });
      }
      return events;
    }
    case 'toolcall_end': {
      const call: PiToolCall = event.toolCall;
      const events = startTool(state, call.id, call.name, call.arguments);
      const open = state.tools.get(call.id);
      if (open) state.tools.set(call.id, { ...open, input: call.arguments });
      state.blocks.delete(event.contentIndex);
      return events;
    }
    default:
      // A message_update kind newer than 0.73.1.
      return [{ type: 'passthrough', frame }];
  }
}

function openBlock(
  state: PiTranslateState,
  contentIndex: number,
  kind: 'text' | 'reasoning',
): { block: OpenBlock; events: EventPayload[] } {
  const existing = state.blocks.get(contentIndex);
  if (existing && existing.kind === kind) return { block: existing, events: [] };
  const block: OpenBlock = { itemId: `pi-msg-${state.assistantCount}-${contentIndex}`, kind };
  state.blocks.set(contentIndex, block);
  const item: Item =
    kind === 'reasoning'
      ? { kind: 'reasoning', id: block.itemId, status: 'running', text: '' }
      : { kind: 'agent_message', id: block.itemId, status: 'running', text: '' };
  return { block, events: [{ type: 'item.started', item }] };
}

/** Pi 0.73.1 built-in tools: bash runs commands, write/edit change files, read/grep/find/ls only look. */
export function piToolKind(name: string): ToolKind {
  if (name === 'bash') return 'command';
  if (name === 'write' || name === 'edit') return 'file_change';
  return 'other';
}

function startTool(state: PiTranslateState, id: string, name: string, input: unknown): EventPayload[] {
  if (state.tools.has(id)) return [];
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status: 'running',
    tool: { kind: piToolKind(name), name },
    input: input ?? {},
  };
  state.tools.set(id, item);
  return [{ type: 'item.started', item }];
}

function onToolStart(
  state: PiTranslateState,
  id: string,
  name: string,
  args: Record<string, unknown> | undefined,
): EventPayload[] {
  const events = startTool(state, id, name, args);
  const open = state.tools.get(id);
  if (open && args) state.tools.set(id, { ...open, input: args });
  return events;
}

function resultText(result: PiToolResult | undefined): string | undefined {
  if (!result || !Array.isArray(result.content)) return undefined;
  const texts = result.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text);
  return texts.length > 0 ? texts.join('') : undefined;
}

function onToolUpdate(
  state: PiTranslateState,
  id: string,
  name: string,
  args: Record<string, unknown> | undefined,
  partial: PiToolResult | undefined,
): EventPayload[] {
  const events = onToolStart(state, id, name, args);
  const text = resultText(partial);
  if (text === undefined) return events;
  // Pi sends the accumulated output each time: preview only what is new.
  const seen = state.toolOutput.get(id) ?? '';
  const fresh = text.startsWith(seen) ? text.slice(seen.length) : text;
  state.toolOutput.set(id, text);
  if (fresh) events.push({ type: 'item.delta', itemId: id, kind: 'tool_output', text: fresh });
  return events;
}

/** Pi 0.73.1 bash reports a non-zero exit only as this status line in the failed result's text. */
const EXIT_CODE_LINE = /Command exited with code (\d+)\s*$/;

function onToolEnd(
  state: PiTranslateState,
  id: string,
  name: string,
  result: PiToolResult | undefined,
  isError: boolean,
): EventPayload[] {
  const events = startTool(state, id, name, undefined);
  const open = state.tools.get(id) as ToolCallItem;
  state.tools.delete(id);
  state.toolOutput.delete(id);
  const text = resultText(result);
  const item: ToolCallItem = { ...open, status: isError ? 'failed' : 'completed' };
  const output: { text?: string; structured?: unknown } = {};
  if (text !== undefined) output.text = text;
  if (result?.details !== undefined && result.details !== null) output.structured = result.details;
  if (Object.keys(output).length > 0) item.output = output;
  if (name === 'bash' && isError && text) {
    const match = EXIT_CODE_LINE.exec(text);
    if (match) item.exitCode = Number(match[1]);
  }
  const changes = fileChanges(name, open.input, result, isError);
  if (changes) item.changes = changes;
  events.push({ type: 'item.completed', item });
  return events;
}

function fileChanges(
  name: string,
  input: unknown,
  result: PiToolResult | undefined,
  isError: boolean,
): ToolCallItem['changes'] {
  if (isError || !isRecord(input) || typeof input.path !== 'string') return undefined;
  if (name === 'write') return [{ path: input.path, kind: 'add' }];
  if (name === 'edit') {
    const diff = isRecord(result?.details) && typeof result.details.diff === 'string' ? result.details.diff : undefined;
    return [{ path: input.path, kind: 'update', ...(diff !== undefined ? { diff } : {}) }];
  }
  return undefined;
}

function onCompactionEnd(state: PiTranslateState, event: Extract<PiEvent, { type: 'compaction_end' }>): EventPayload[] {
  const id = state.openCompaction ?? `pi-compaction-${++state.compactionCount}`;
  state.openCompaction = undefined;
  const status = event.aborted ? 'cancelled' : event.result ? 'completed' : 'failed';
  const events: EventPayload[] = [
    {
      type: 'item.completed',
      item: {
        kind: 'compaction',
        id,
        status,
        ...(event.reason ? { trigger: event.reason } : {}),
        ...(typeof event.result?.tokensBefore === 'number' ? { preTokens: event.result.tokensBefore } : {}),
      },
    },
  ];
  // An overflow compaction that succeeded re-runs the prompt: the turn goes on.
  if (event.willRetry) state.pendingEnd = undefined;
  if (event.errorMessage) events.push({ type: 'notice', kind: 'compaction', message: event.errorMessage });
  return events;
}

function lastAssistant(messages: readonly PiMessage[] | undefined): PiAssistantMessage | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant') return message as PiAssistantMessage;
  }
  return undefined;
}

function onAgentEnd(state: PiTranslateState, messages: PiMessage[]): EventPayload[] {
  state.retrying = false;
  const last = lastAssistant(messages);
  const stopReason = last?.stopReason;
  if (stopReason === 'aborted' || (state.interruptRequested && stopReason === 'error')) {
    state.pendingEnd = { outcome: { status: 'cancelled' }, stopReason };
  } else if (stopReason === 'error') {
    state.pendingEnd = { outcome: { status: 'failed', error: piProviderError(last?.errorMessage) }, stopReason };
  } else {
    state.pendingEnd = { outcome: { status: 'completed' }, ...(stopReason ? { stopReason } : {}) };
  }
  return [];
}

function onRetryEnd(state: PiTranslateState, success: boolean, attempt: number, finalError?: string): EventPayload[] {
  state.retrying = false;
  if (success) {
    return [
      { type: 'notice', kind: 'retry', message: `Pi's retry succeeded (attempt ${attempt}).`, data: { attempt } },
    ];
  }
  // Pi gave up (or the retry was cancelled): this is the real end of the turn, whatever was pending.
  state.pendingEnd = state.interruptRequested
    ? { outcome: { status: 'cancelled' }, stopReason: 'aborted' }
    : { outcome: { status: 'failed', error: withAttempts(piProviderError(finalError), attempt) }, stopReason: 'error' };
  return [
    {
      type: 'notice',
      kind: 'retry',
      message: `Pi stopped retrying after ${attempt} attempt(s): ${finalError ?? 'unknown error'}`,
      data: { attempt },
    },
    ...settleTurn(state),
  ];
}

function withAttempts(error: ErrorInfo, attempts: number): ErrorInfo {
  return { ...error, data: { ...error.data, attempts } };
}

/** True while agent_end has been seen and the barrier has not settled it yet. */
export function isTurnEndPending(state: PiTranslateState): boolean {
  return state.pendingEnd !== undefined;
}

/** Emits the turn's terminal once the barrier confirmed that no retry follows (see header). */
export function settleTurn(state: PiTranslateState): EventPayload[] {
  const pending = state.pendingEnd;
  if (!pending) return [];
  state.pendingEnd = undefined;
  const usage = currentUsage(state);
  return [
    { type: 'session.status', status: 'idle' },
    {
      type: 'turn.completed',
      outcome: pending.outcome,
      ...(usage ? { usage } : {}),
      ...(pending.stopReason ? { stopReason: pending.stopReason } : {}),
    },
  ];
}

/** Ends a turn for a reason that is not a Pi frame (process exit, a rejected prompt). */
export function failTurn(state: PiTranslateState, error: ErrorInfo): EventPayload[] {
  state.pendingEnd = { outcome: { status: 'failed', error } };
  return settleTurn(state);
}

// ---- usage ----
function add(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined) return a;
  return (a ?? 0) + b;
}

function currentUsage(state: PiTranslateState) {
  if (!state.turnUsage && state.turnCost === undefined) return undefined;
  return {
    ...(state.turnUsage ? { turn: state.turnUsage } : {}),
    ...(state.turnCost !== undefined
      ? { costUsd: { amount: state.turnCost, currency: 'USD' as const, source: 'provider' as const } }
      : {}),
  };
}

function addUsage(state: PiTranslateState, usage: PiUsage | undefined): EventPayload | undefined {
  if (!usage) return undefined;
  const turn: TokenUsage = { ...state.turnUsage };
  const sum = (key: keyof TokenUsage, value: number | undefined) => {
    const next = add(turn[key], typeof value === 'number' ? value : undefined);
    if (next !== undefined) turn[key] = next;
  };
  sum('input', usage.input);
  sum('cachedInput', usage.cacheRead);
  sum('cacheWrite', usage.cacheWrite);
  sum('output', usage.output);
  sum('total', usage.totalTokens);
  state.turnUsage = turn;
  // Pi prices usage from its own model table (models.json `cost`) and reports it: source provider
  // (the harness reported it; derived is for Reins' own price table). A zero there means "no price
  // known", not "free", so a zero total is left absent.
  const cost = usage.cost?.total;
  if (typeof cost === 'number' && cost > 0) state.turnCost = (state.turnCost ?? 0) + cost;
  const used = usage.totalTokens;
  return {
    type: 'usage.updated',
    turn,
    ...(typeof used === 'number' || state.contextWindow !== undefined
      ? {
          context: {
            ...(typeof used === 'number' ? { used } : {}),
            ...(state.contextWindow !== undefined ? { window: state.contextWindow } : {}),
          },
        }
      : {}),
    ...(state.turnCost !== undefined
      ? { costUsd: { amount: state.turnCost, currency: 'USD' as const, source: 'provider' as const } }
      : {}),
  };
}

// ---- errors ----
/**
 * Pi 0.73.1 reports provider failures only as text (errorMessage, e.g. "500 fake server error 500" or
 * "429 ..."); there is no structured status field, so the kind is read from the leading HTTP status
 * and well-known words. Unrecognized text keeps kind `unknown`.
 */
export function piProviderError(message: string | undefined): ErrorInfo {
  const text = message ?? 'The model provider reported an error.';
  const status = /^\s*(\d{3})\b/.exec(text)?.[1];
  const kind = providerErrorKind(text, status ? Number(status) : undefined);
  return {
    code: 'provider_error',
    message: text,
    retryable: kind === 'rate_limited' || kind === 'overloaded' || kind === 'server_error',
    data: { kind, ...(status ? { status: Number(status) } : {}) },
  };
}

function providerErrorKind(text: string, status: number | undefined): ProviderErrorKind {
  if (/context.{0,20}(length|window|overflow)|maximum context|prompt is too long|too many tokens/i.test(text)) {
    return 'context_window_exceeded';
  }
  if (status === 429 || /rate.?limit|too many requests/i.test(text)) return 'rate_limited';
  if (status === 529 || /overloaded/i.test(text)) return 'overloaded';
  if ((status !== undefined && status >= 500) || /server.?error|service.?unavailable/i.test(text)) {
    return 'server_error';
  }
  if (status !== undefined && status >= 400) return 'bad_request';
  if (/fetch failed|connection|ECONNREFUSED|socket hang up|network/i.test(text)) return 'connection_failed';
  return 'unknown';
}

// ---- history ----
/** Items for a stored conversation (get_messages), in order; every item completed and marked replayed. */
export function piMessagesToItems(messages: readonly PiMessage[]): Item[] {
  const items: Item[] = [];
  const tools = new Map<string, ToolCallItem>();
  messages.forEach((message, index) => {
    if (message.role === 'user') {
      items.push({
        kind: 'user_message',
        id: `pi-history-${index}`,
        status: 'completed',
        text: userText(message),
        replay: true,
      });
      return;
    }
    if (message.role === 'assistant') {
      const assistant = message as PiAssistantMessage;
      (assistant.content ?? []).forEach((block, blockIndex) => {
        const id = `pi-history-${index}-${blockIndex}`;
        if (block.type === 'text') items.push({ kind: 'agent_message', id, status: 'completed', text: block.text });
        else if (block.type === 'thinking')
          items.push({ kind: 'reasoning', id, status: 'completed', text: block.thinking });
        else if (block.type === 'toolCall') {
          const item: ToolCallItem = {
            kind: 'tool_call',
            id: block.id,
            // Until its result is seen; a call without a result did not complete.
            status: 'cancelled',
            tool: { kind: piToolKind(block.name), name: block.name },
            input: block.arguments,
          };
          tools.set(block.id, item);
          items.push(item);
        }
      });
      return;
    }
    if (message.role === 'toolResult') {
      const result = message as PiToolResultMessage;
      const item = tools.get(result.toolCallId);
      if (!item) return;
      const text = resultText(result);
      item.status = result.isError ? 'failed' : 'completed';
      if (text !== undefined) item.output = { text };
      const changes = fileChanges(item.tool.name, item.input, result, result.isError === true);
      if (changes) item.changes = changes;
    }
  });
  return items;
}
