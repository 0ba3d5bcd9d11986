// Pi message events (message_start, message_update, message_end) as items: a user message, and the text,
// thinking and toolCall blocks of the assistant message being streamed (their deltas, their ends, and the
// blocks an aborted or failed stream left open). Pure; the state is the translation's (state.ts).
import { type Item, isRecord } from '@reins/core';
import { index, sendable, str, userText } from './messages.js';
import { emitItem, type PayloadSink, passthrough } from './sink.js';
import type { BlockKind, OpenBlock, PiTranslateState } from './state.js';
import { startTool, toolCopy } from './tool-events.js';
import { addUsage } from './turn-end.js';

export function onMessageStart(
  state: PiTranslateState,
  message: Record<string, unknown>,
  frame: unknown,
  sink: PayloadSink,
): void {
  if (message.role === 'assistant') {
    state.assistantCount++;
    // Only when something is in them: clear() allocates a fresh table even for an empty Map or Set (the
    // bench's translate figure), and a message mostly starts after the last one closed its blocks.
    if (state.blocks.size > 0) state.blocks.clear();
    if (state.endedBlocks === undefined) state.endedBlocks = new Set();
    else if (state.endedBlocks.size > 0) state.endedBlocks.clear();
    return;
  }
  if (message.role === 'user') {
    state.userCount++;
    const id = `pi-user-${state.userCount}`;
    state.openUserItem = id;
    emitItem(state, sink, frame, {
      type: 'item.started',
      item: { kind: 'user_message', id, status: 'running', text: userText(message) },
    });
  }
}

function stopStatus(message: Record<string, unknown>): 'completed' | 'cancelled' | 'failed' {
  return message.stopReason === 'aborted' ? 'cancelled' : message.stopReason === 'error' ? 'failed' : 'completed';
}

export function onMessageEnd(
  state: PiTranslateState,
  message: Record<string, unknown>,
  frame: unknown,
  sink: PayloadSink,
): void {
  if (message.role === 'user') {
    const id = state.openUserItem ?? `pi-user-${++state.userCount}`;
    state.openUserItem = undefined;
    emitItem(state, sink, frame, {
      type: 'item.completed',
      item: { kind: 'user_message', id, status: 'completed', text: userText(message) },
    });
    return;
  }
  if (message.role !== 'assistant') return;
  // Blocks Pi left without an *_end (aborted or failed stream): close them with what the message holds.
  const status = stopStatus(message);
  const content = Array.isArray(message.content) ? message.content : [];
  if (state.blocks.size > 0) closeOpenBlocks(state, content, status, frame, sink);
  if (message.stopReason !== 'error' && message.stopReason !== 'aborted') {
    const usage = addUsage(state, message.usage);
    if (usage) sink.emit(usage);
  }
}

/** Closes the text and thinking blocks still open with what the message holds (tool calls stay). */
function closeOpenBlocks(
  state: PiTranslateState,
  content: unknown[],
  status: 'completed' | 'cancelled' | 'failed',
  frame: unknown,
  sink: PayloadSink,
): void {
  for (const [at, block] of state.blocks) {
    if (block.kind === 'tool') continue;
    emitItem(state, sink, frame, { type: 'item.completed', item: blockItem(block, content[at], status) });
    state.blocks.delete(at);
  }
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

export function onMessageUpdate(
  state: PiTranslateState,
  message: Record<string, unknown>,
  event: Record<string, unknown>,
  frame: Record<string, unknown>,
  sink: PayloadSink,
): void {
  const kind = event.type as string;
  if (kind === 'start' || kind === 'done' || kind === 'error') return;
  const blockKind = blockOf(kind);
  // A message_update kind newer than 0.73.1.
  if (blockKind === undefined) {
    sink.emit(passthrough(frame, 'unknown'));
    return;
  }
  const at = index(event.contentIndex);
  if (at === undefined) {
    sink.emit(passthrough(frame, 'unparsable'));
    return;
  }
  if (blockKind === 'tool') {
    onToolBlock(state, message, event, at, frame, sink);
    return;
  }
  // A re-sent text/thinking frame for a block that already ended: nothing new.
  if (state.endedBlocks?.has(at)) {
    sink.emit(passthrough(frame, 'duplicate'));
    return;
  }
  const phase = kind.charCodeAt(kind.length - 1);
  if (
    (phase === DELTA && event.delta !== undefined && typeof event.delta !== 'string') ||
    (phase === END && typeof event.content !== 'string')
  ) {
    sink.emit(passthrough(frame, 'unparsable'));
    return;
  }
  const block = openBlock(state, at, blockKind, frame, sink);
  if (phase === DELTA && event.delta) {
    sink.emit({
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
    emitItem(state, sink, frame, { type: 'item.completed', item });
  }
}

function onToolBlock(
  state: PiTranslateState,
  message: Record<string, unknown>,
  event: Record<string, unknown>,
  at: number,
  frame: Record<string, unknown>,
  sink: PayloadSink,
): void {
  if (event.type === 'toolcall_end') {
    const call = event.toolCall;
    if (!isRecord(call) || typeof call.id !== 'string') {
      sink.emit(passthrough(frame, 'unparsable'));
      return;
    }
    startTool(state, call.id, str(call.name) ?? 'tool', call.arguments, frame, sink);
    const open = state.tools.get(call.id);
    if (open && call.arguments !== undefined)
      state.tools.set(call.id, toolCopy(open, open.status, sendable(call.arguments)));
    state.blocks.delete(at);
    return;
  }
  const content = Array.isArray(message.content) ? message.content : [];
  const call = content[at];
  if (!isRecord(call) || call.type !== 'toolCall' || typeof call.id !== 'string') return;
  startTool(state, call.id, str(call.name) ?? 'tool', call.arguments, frame, sink);
  state.blocks.set(at, { itemId: call.id, kind: 'tool' });
  if (event.type === 'toolcall_delta' && typeof event.delta === 'string' && event.delta && state.tools.has(call.id)) {
    sink.emit({ type: 'item.delta', itemId: call.id, kind: 'tool_input', text: event.delta });
  }
}

/** The open block at `at` of this kind, or a new one (its item.started emitted). */
function openBlock(
  state: PiTranslateState,
  at: number,
  kind: 'text' | 'reasoning',
  frame: unknown,
  sink: PayloadSink,
): OpenBlock {
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
  emitItem(state, sink, frame, { type: 'item.started', item });
  return block;
}
