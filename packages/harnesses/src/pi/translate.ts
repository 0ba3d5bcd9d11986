// Pure translation of Pi `--mode rpc` events into Reins event payloads, and the turn-boundary rule.
// No process here: the session feeds parsed frames in and emits what comes out.
//
// The turn boundary (agent_end, retries, the get_state barrier) and the turn's usage: turn-end.ts.
//
// Frames that carry nothing beyond what other events already say (turn_start, turn_end,
// message_update start/done/error, queue_update, message_start of an assistant) map to no event.
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what Pi sends. An event type or message_update kind newer than 0.73.1 passes
// through with reason `unknown`; one whose fields lack the types of Pi's .d.ts passes through with reason
// `unparsable`; an item started or completed a second time (a re-sent frame) passes through with reason
// `duplicate`. Message content, provider errors and stored history: messages.ts.
import {
  type EventPayload,
  type Item,
  isRecord,
  type PassthroughReason,
  type TokenUsage,
  type ToolCallItem,
} from '@reins/core';
import { fileChanges, index, piToolKind, resultText, sendable, shown, str, userText } from './messages.js';
import { addUsage, onAgentEnd, onRetryEnd } from './turn-end.js';
import type { PiEventType } from './wire.js';

export { piMessagesToItems, piProviderError, piToolKind } from './messages.js';
export { failTurn, isTurnEndPending, settleTurn } from './turn-end.js';

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
  /** Set by agent_end; the terminal waits for the barrier (see header). */
  pendingEnd: PendingEnd | undefined;
  /** Between auto_retry_start and the next agent_end. */
  retrying: boolean;
  /** The client asked to stop: an error or a given-up retry then ends the turn as cancelled. */
  interruptRequested: boolean;
  /** Item ids already started / completed, so no item is announced twice (bounded). */
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

const passthrough = (frame: unknown, reason?: PassthroughReason): EventPayload =>
  reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame };

/** The frame as unparsable; made only when needed (not per frame: the bench's translate figure). */
const unparsableOf = (frame: unknown): EventPayload[] => [passthrough(frame, 'unparsable')];

/** At most this many item ids are remembered for de-duplication. */
const REMEMBERED_ITEMS = 10_000;

/** Replaces a start or completion of an item already announced by a duplicate passthrough. */
function once(state: PiTranslateState, frame: unknown, payloads: EventPayload[]): EventPayload[] {
  state.seen ??= new Map();
  const seen = state.seen;
  // In place, without a closure per frame (the bench's translate figure): every translation returns a fresh array.
  for (let index = 0; index < payloads.length; index++) {
    const payload = payloads[index] as EventPayload;
    if (payload.type !== 'item.started' && payload.type !== 'item.completed') continue;
    const before = seen.get(payload.item.id);
    if (before === 'completed' || (before === 'started' && payload.type === 'item.started')) {
      payloads[index] = passthrough(frame, 'duplicate');
      continue;
    }
    seen.delete(payload.item.id);
    seen.set(payload.item.id, payload.type === 'item.started' ? 'started' : 'completed');
    if (seen.size > REMEMBERED_ITEMS) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  }
  return payloads;
}

/** Translates one parsed stdout frame that is not a command response. */
export function translatePiFrame(state: PiTranslateState, frame: Record<string, unknown>): EventPayload[] {
  if (!isRecord(frame) || typeof frame.type !== 'string') return [passthrough(frame, 'unparsable')];
  return once(state, frame, translateEvent(state, frame));
}

/**
 * One event of a type Pi declares (wire.ts PI_EVENT_TYPES: every one has its case here, asserted by
 * translate.test.ts); any other type passes through as `unknown`. The switch decides that alone: a set
 * lookup first hashed the fresh type string of every frame (the bench's translate figure).
 */
function translateEvent(state: PiTranslateState, event: Record<string, unknown>): EventPayload[] {
  // Ordered by how often Pi sends them (every streamed token is a message_update): each case before
  // the match compares the fresh type string once more.
  switch (event.type as PiEventType) {
    case 'message_update':
      return isRecord(event.assistantMessageEvent) && typeof event.assistantMessageEvent.type === 'string'
        ? onMessageUpdate(state, isRecord(event.message) ? event.message : {}, event.assistantMessageEvent, event)
        : unparsableOf(event);
    case 'message_start':
      return isRecord(event.message) ? onMessageStart(state, event.message) : unparsableOf(event);
    case 'message_end':
      return isRecord(event.message) ? onMessageEnd(state, event.message) : unparsableOf(event);
    case 'turn_start':
    case 'turn_end':
    case 'queue_update':
      return [];
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
      return onTool(state, event);
    case 'agent_start':
      state.retrying = false;
      return [{ type: 'session.status', status: 'running' }];
    case 'agent_end':
      return onAgentEnd(state, event.messages);
    case 'compaction_start': {
      state.compactionCount++;
      const id = `pi-compaction-${state.compactionCount}`;
      state.openCompaction = id;
      const trigger = str(event.reason);
      return [
        { type: 'item.started', item: { kind: 'compaction', id, status: 'running', ...(trigger ? { trigger } : {}) } },
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
          message: `Pi retries after an error (attempt ${shown(event.attempt)} of ${shown(event.maxAttempts)}, in ${shown(event.delayMs)} ms): ${str(event.errorMessage) ?? 'unknown error'}`,
          data: sendable({ attempt: event.attempt, maxAttempts: event.maxAttempts, delayMs: event.delayMs }),
        },
      ];
    case 'auto_retry_end':
      return onRetryEnd(state, event.success === true, event.attempt, str(event.finalError));
    case 'thinking_level_changed':
      return typeof event.level === 'string' ? [{ type: 'session.updated', effort: event.level }] : unparsableOf(event);
    case 'extension_error': {
      const path = str(event.extensionPath);
      return [
        {
          type: 'notice',
          kind: 'warning',
          message: `A Pi extension failed${path ? ` (${path})` : ''}: ${str(event.error) ?? 'unknown error'}`,
          data: sendable(event),
        },
      ];
    }
    case 'extension_ui_request':
      return typeof event.method === 'string' ? onExtensionUi(event.method, event) : unparsableOf(event);
    default:
      // A type newer than 0.73.1.
      return [passthrough(event, 'unknown')];
  }
}

/** Dialogs block Pi until answered; the session answers them cancelled (Reins has no UI channel for them). */
export const PI_DIALOG_METHODS: ReadonlySet<string> = new Set(['select', 'confirm', 'input', 'editor']);

function onExtensionUi(method: string, frame: Record<string, unknown>): EventPayload[] {
  if (PI_DIALOG_METHODS.has(method)) {
    const title = typeof frame.title === 'string' ? `: ${frame.title}` : '';
    return [
      {
        type: 'notice',
        kind: 'warning',
        message: `A Pi extension asked for input (${method}${title}); Reins answered it as cancelled.`,
        data: sendable(frame),
      },
    ];
  }
  if (method === 'notify' && typeof frame.message === 'string') {
    return [{ type: 'notice', kind: frame.notifyType === 'warning' ? 'warning' : 'info', message: frame.message }];
  }
  return [passthrough(frame)];
}

function onMessageStart(state: PiTranslateState, message: Record<string, unknown>): EventPayload[] {
  if (message.role === 'assistant') {
    state.assistantCount++;
    state.blocks.clear();
    if (state.endedBlocks) state.endedBlocks.clear();
    else state.endedBlocks = new Set();
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

function stopStatus(message: Record<string, unknown>): 'completed' | 'cancelled' | 'failed' {
  return message.stopReason === 'aborted' ? 'cancelled' : message.stopReason === 'error' ? 'failed' : 'completed';
}

function onMessageEnd(state: PiTranslateState, message: Record<string, unknown>): EventPayload[] {
  if (message.role === 'user') {
    const id = state.openUserItem ?? `pi-user-${++state.userCount}`;
    state.openUserItem = undefined;
    return [
      { type: 'item.completed', item: { kind: 'user_message', id, status: 'completed', text: userText(message) } },
    ];
  }
  if (message.role !== 'assistant') return [];
  const events: EventPayload[] = [];
  // Blocks Pi left without an *_end (aborted or failed stream): close them with what the message holds.
  const status = stopStatus(message);
  const content = Array.isArray(message.content) ? message.content : [];
  for (const [at, block] of state.blocks) {
    if (block.kind === 'tool') continue;
    events.push({ type: 'item.completed', item: blockItem(block, content[at], status) });
    state.blocks.delete(at);
  }
  if (message.stopReason !== 'error' && message.stopReason !== 'aborted') {
    const usage = addUsage(state, message.usage);
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

/**
 * The content block a message_update kind streams; undefined for a kind newer than 0.73.1. A switch, not
 * a regex or a table: both scan or hash the fresh kind string of every streamed frame.
 */
function blockOf(kind: string): BlockKind | undefined {
  switch (kind) {
    case 'text_delta':
    case 'text_start':
    case 'text_end':
      return 'text';
    case 'toolcall_delta':
    case 'toolcall_start':
    case 'toolcall_end':
      return 'tool';
    case 'thinking_delta':
    case 'thinking_start':
    case 'thinking_end':
      return 'reasoning';
    default:
      return undefined;
  }
}

// The phase of a block kind blockOf knows, by its last letter: _start, _delta, _end.
const DELTA = 0x61; // 'a'
const END = 0x64; // 'd'

function onMessageUpdate(
  state: PiTranslateState,
  message: Record<string, unknown>,
  event: Record<string, unknown>,
  frame: Record<string, unknown>,
): EventPayload[] {
  const kind = event.type as string;
  if (kind === 'start' || kind === 'done' || kind === 'error') return [];
  const blockKind = blockOf(kind);
  // A message_update kind newer than 0.73.1.
  if (blockKind === undefined) return [passthrough(frame, 'unknown')];
  const at = index(event.contentIndex);
  if (at === undefined) return [passthrough(frame, 'unparsable')];
  if (blockKind === 'tool') return onToolBlock(state, message, event, at, frame);
  // A re-sent text/thinking frame for a block that already ended: nothing new.
  if (state.endedBlocks?.has(at)) return [passthrough(frame, 'duplicate')];
  const phase = kind.charCodeAt(kind.length - 1);
  if (phase === DELTA && event.delta !== undefined && typeof event.delta !== 'string') {
    return [passthrough(frame, 'unparsable')];
  }
  if (phase === END && typeof event.content !== 'string') return [passthrough(frame, 'unparsable')];
  const events: EventPayload[] = [];
  const block = openBlock(state, at, blockKind, events);
  if (phase === DELTA && event.delta) {
    events.push({
      type: 'item.delta',
      itemId: block.itemId,
      kind: block.kind === 'reasoning' ? 'reasoning' : 'text',
      text: event.delta as string,
    });
  }
  if (phase === END) {
    state.blocks.delete(at);
    state.endedBlocks ??= new Set();
    state.endedBlocks.add(at);
    // Pi 0.73.1 still sends text_end after an abort; the message already says stopReason "aborted".
    const item: Item =
      block.kind === 'reasoning'
        ? { kind: 'reasoning', id: block.itemId, status: stopStatus(message), text: event.content as string }
        : { kind: 'agent_message', id: block.itemId, status: stopStatus(message), text: event.content as string };
    events.push({ type: 'item.completed', item });
  }
  return events;
}

function onToolBlock(
  state: PiTranslateState,
  message: Record<string, unknown>,
  event: Record<string, unknown>,
  at: number,
  frame: Record<string, unknown>,
): EventPayload[] {
  if (event.type === 'toolcall_end') {
    const call = event.toolCall;
    if (!isRecord(call) || typeof call.id !== 'string') return [passthrough(frame, 'unparsable')];
    const events = startTool(state, call.id, str(call.name) ?? 'tool', call.arguments);
    const open = state.tools.get(call.id);
    if (open && call.arguments !== undefined)
      state.tools.set(call.id, toolCopy(open, open.status, sendable(call.arguments)));
    state.blocks.delete(at);
    return events;
  }
  const content = Array.isArray(message.content) ? message.content : [];
  const call = content[at];
  if (!isRecord(call) || call.type !== 'toolCall' || typeof call.id !== 'string') return [];
  const events = startTool(state, call.id, str(call.name) ?? 'tool', call.arguments);
  state.blocks.set(at, { itemId: call.id, kind: 'tool' });
  if (event.type === 'toolcall_delta' && typeof event.delta === 'string' && event.delta && state.tools.has(call.id)) {
    events.push({ type: 'item.delta', itemId: call.id, kind: 'tool_input', text: event.delta });
  }
  return events;
}

/** The open block at `at` of this kind, or a new one (its item.started pushed onto `events`). */
function openBlock(state: PiTranslateState, at: number, kind: 'text' | 'reasoning', events: EventPayload[]): OpenBlock {
  const existing = state.blocks.get(at);
  if (existing && existing.kind === kind) return existing;
  // A block of another kind at this index, or a message whose message_start was lost, must not reuse an
  // id already given out: the next free one is taken (#2, #3, ...).
  const base = `pi-msg-${state.assistantCount}-${at}`;
  let itemId = base;
  for (let n = 2; state.seen?.has(itemId); n++) itemId = `${base}#${n}`;
  const block: OpenBlock = { itemId, kind };
  state.blocks.set(at, block);
  const item: Item =
    kind === 'reasoning'
      ? { kind: 'reasoning', id: block.itemId, status: 'running', text: '' }
      : { kind: 'agent_message', id: block.itemId, status: 'running', text: '' };
  events.push({ type: 'item.started', item });
  return block;
}

function startTool(state: PiTranslateState, id: string, name: string, input: unknown): EventPayload[] {
  // A call already running, or one that already completed (a re-sent frame), is not started again.
  if (state.tools.has(id) || state.seen?.get(id) === 'completed') return [];
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status: 'running',
    tool: { kind: piToolKind(name), name },
    input: sendable(input ?? {}),
  };
  state.tools.set(id, item);
  return [{ type: 'item.started', item }];
}

/** Pi 0.73.1 bash reports a non-zero exit only as this status line in the failed result's text. */
const EXIT_CODE_LINE = /Command exited with code (\d+)\s*$/;

/**
 * A copy of a tool item (already emitted, so never changed in place) with another status and input.
 * Key by key, in the item's order (kind, id, status, tool, input): the copy then gains output, exitCode
 * and changes, and a spread copy that gains keys takes V8's slow path (bench/README.md).
 */
function toolCopy(open: ToolCallItem, status: ToolCallItem['status'], input: unknown): ToolCallItem {
  return { kind: 'tool_call', id: open.id, status, tool: open.tool, input };
}

/**
 * Pi 0.73.1's bash exit status, when the text's status line names one the contract can hold (an
 * integer; a longer digit run than any exit status is left out rather than clamped).
 */
function exitCodeOf(text: string): number | undefined {
  const match = EXIT_CODE_LINE.exec(text);
  if (!match) return undefined;
  const code = Number(match[1]);
  return code <= 0x7fffffff ? code : undefined;
}

function onTool(state: PiTranslateState, event: Record<string, unknown>): EventPayload[] {
  const id = str(event.toolCallId);
  if (id === undefined) return [passthrough(event, 'unparsable')];
  if (state.seen?.get(id) === 'completed') return [passthrough(event, 'duplicate')];
  const name = str(event.toolName) ?? 'tool';
  const args = isRecord(event.args) ? event.args : undefined;
  const events = startTool(state, id, name, args);
  const open = state.tools.get(id) as ToolCallItem;
  if (event.type !== 'tool_execution_end') {
    if (args) state.tools.set(id, toolCopy(open, open.status, sendable(args)));
    const text = event.type === 'tool_execution_update' ? resultText(event.partialResult) : undefined;
    if (text === undefined) return events;
    // Pi sends the accumulated output each time: preview only what is new.
    const seen = state.toolOutput.get(id) ?? '';
    const fresh = text.startsWith(seen) ? text.slice(seen.length) : text;
    state.toolOutput.set(id, text);
    if (fresh) events.push({ type: 'item.delta', itemId: id, kind: 'tool_output', text: fresh });
    return events;
  }
  const isError = event.isError === true;
  const result = event.result;
  state.tools.delete(id);
  state.toolOutput.delete(id);
  const text = resultText(result);
  const item = toolCopy(open, isError ? 'failed' : 'completed', open.input);
  const details = isRecord(result) ? result.details : undefined;
  const structured = details !== undefined && details !== null;
  if (text !== undefined) item.output = structured ? { text, structured: sendable(details) } : { text };
  else if (structured) item.output = { structured: sendable(details) };
  if (name === 'bash' && isError && text) {
    const exitCode = exitCodeOf(text);
    if (exitCode !== undefined) item.exitCode = exitCode;
  }
  const changes = fileChanges(name, open.input, result, isError);
  if (changes) item.changes = changes;
  events.push({ type: 'item.completed', item });
  return events;
}

function onCompactionEnd(state: PiTranslateState, event: Record<string, unknown>): EventPayload[] {
  const id = state.openCompaction ?? `pi-compaction-${++state.compactionCount}`;
  state.openCompaction = undefined;
  const result = isRecord(event.result) ? event.result : undefined;
  const status = event.aborted === true ? 'cancelled' : result ? 'completed' : 'failed';
  const trigger = str(event.reason);
  const before = result?.tokensBefore;
  const events: EventPayload[] = [
    {
      type: 'item.completed',
      item: {
        kind: 'compaction',
        id,
        status,
        ...(trigger ? { trigger } : {}),
        ...(Number.isInteger(before) && (before as number) >= 0 ? { preTokens: before as number } : {}),
      },
    },
  ];
  // An overflow compaction that succeeded re-runs the prompt: the turn goes on.
  if (event.willRetry === true) state.pendingEnd = undefined;
  const error = str(event.errorMessage);
  if (error) events.push({ type: 'notice', kind: 'compaction', message: error });
  return events;
}
