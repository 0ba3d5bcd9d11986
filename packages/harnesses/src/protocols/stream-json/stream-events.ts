// Partial messages in stream-json (`stream_event`, with --include-partial-messages): the content block
// starts and deltas of an API message as items and deltas; the assistant frame and `result` carry the
// truth for block and message ends (translate.ts). Pure; the state is the translation's (state.ts).
import type { Item } from '@reins/core';
import { promptTokens } from './result.js';
import type { EmissionSink } from './sink.js';
import {
  blockItemId,
  currentMessage,
  firstStart,
  registerMessage,
  setBlock,
  setCurrentMessage,
  type TranslationState,
} from './state.js';
import { emitOnLane, emitPassthrough } from './tasks.js';
import { startTool } from './tool-calls.js';
import { isObject, laneOf } from './values.js';
import type { WirePartialMessage, WireStreamEvent } from './wire.js';

export function translateStreamEvent(state: TranslationState, frame: WirePartialMessage, sink: EmissionSink): void {
  const event = frame.event as WireStreamEvent;
  const type = isObject(event) ? event.type : undefined;
  // Block and message boundaries: the assistant frame and `result` carry the truth for these. They are
  // left before the lane is read (a lookup in frames of many shapes, for nothing here).
  if (type === 'content_block_stop' || type === 'message_stop' || type === 'message_delta') return;
  const lane = laneOf(frame.parent_tool_use_id);
  const laneKey = lane ?? '';
  if (!isObject(event)) {
    emitPassthrough(state, sink, frame, lane);
    return;
  }
  switch (type) {
    case 'message_start': {
      const message = (event as Extract<WireStreamEvent, { type: 'message_start' }>).message;
      if (!isObject(message) || typeof message.id !== 'string') {
        emitPassthrough(state, sink, frame, lane, 'unparsable');
        return;
      }
      if (state.finishedMessages?.has(message.id)) {
        emitPassthrough(state, sink, frame, lane, 'duplicate');
        return;
      }
      setCurrentMessage(state, laneKey, registerMessage(state, message.id, laneKey));
      if (lane === undefined) state.contextUsed = promptTokens(message.usage) ?? state.contextUsed;
      return;
    }
    case 'content_block_start':
      blockStart(state, frame, event as Extract<WireStreamEvent, { type: 'content_block_start' }>, lane, sink);
      return;
    case 'content_block_delta':
      blockDelta(state, frame, event as Extract<WireStreamEvent, { type: 'content_block_delta' }>, lane, sink);
      return;
    default:
      emitPassthrough(state, sink, frame, lane);
  }
}

function blockStart(
  state: TranslationState,
  frame: WirePartialMessage,
  event: Extract<WireStreamEvent, { type: 'content_block_start' }>,
  lane: string | undefined,
  sink: EmissionSink,
): void {
  const message = currentMessage(state, lane ?? '');
  if (message === undefined) {
    emitPassthrough(state, sink, frame, lane);
    return;
  }
  const block = event.content_block;
  if (!isObject(block) || !Number.isInteger(event.index)) {
    emitPassthrough(state, sink, frame, lane, 'unparsable');
    return;
  }
  const index = event.index as number;
  // A re-sent block start: the block is already open (or done).
  if (message.blocks[index] !== undefined) {
    emitPassthrough(state, sink, frame, lane, 'duplicate');
    return;
  }
  if (block.type === 'text' || block.type === 'thinking') {
    const kind = block.type === 'text' ? 'text' : 'reasoning';
    const id = blockItemId(message, index);
    setBlock(message, index, id, kind, false);
    const item: Item =
      kind === 'text'
        ? { kind: 'agent_message', id, status: 'running', text: '' }
        : { kind: 'reasoning', id, status: 'running', text: '' };
    emitOnLane(state, sink, { type: 'item.started', item }, lane);
    return;
  }
  if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
    const kind = state.options.classifyTool(block.name);
    setBlock(message, index, block.id, kind === 'plan' ? 'plan' : 'tool', false);
    // A plan is announced once its entries are known (the assistant frame), not empty.
    if (kind === 'plan') return;
    if (!firstStart(state, block.id)) {
      emitPassthrough(state, sink, frame, lane, 'duplicate');
      return;
    }
    const item = startTool(state, block.id, block.name, kind, {});
    emitOnLane(state, sink, { type: 'item.started', item }, lane);
    return;
  }
  emitPassthrough(state, sink, frame, lane);
}

function blockDelta(
  state: TranslationState,
  frame: WirePartialMessage,
  event: Extract<WireStreamEvent, { type: 'content_block_delta' }>,
  lane: string | undefined,
  sink: EmissionSink,
): void {
  const message = currentMessage(state, lane ?? '');
  const block =
    message === undefined || !Number.isInteger(event.index) ? undefined : message.blocks[event.index as number];
  if (!block) {
    emitPassthrough(state, sink, frame, lane);
    return;
  }
  if (!isObject(event.delta)) {
    emitPassthrough(state, sink, frame, lane, 'unparsable');
    return;
  }
  const delta = event.delta as { type: string; text?: string; thinking?: string; partial_json?: string };
  if (delta.type === 'text_delta' && typeof delta.text === 'string') {
    emitOnLane(state, sink, { type: 'item.delta', itemId: block.itemId, kind: 'text', text: delta.text }, lane);
    return;
  }
  if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
    emitOnLane(
      state,
      sink,
      { type: 'item.delta', itemId: block.itemId, kind: 'reasoning', text: delta.thinking },
      lane,
    );
    return;
  }
  if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
    if (block.kind === 'plan') return;
    emitOnLane(
      state,
      sink,
      { type: 'item.delta', itemId: block.itemId, kind: 'tool_input', text: delta.partial_json },
      lane,
    );
    return;
  }
  // signature_delta authenticates a thinking block for the API; nothing to show.
  if (delta.type === 'signature_delta') return;
  emitPassthrough(state, sink, frame, lane);
}
