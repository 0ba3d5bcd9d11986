// Content blocks and tool results on the less common paths the translation keeps beside its fast ones
// (state.ts, translate.ts, tool-calls.ts): item ids past the ids made once, a message whose first block
// is not at index 0, holes in a content list, and tool results made of several text parts.
import type { EventPayload } from '@reins/core';
import { describe, expect, test } from 'vitest';
import { createTranslationState, type TranslationState, translateFrame } from './translate.js';

const OPTIONS = { source: 'test.stream-json', harnessName: 'Test' };

function payloads(state: TranslationState, frames: unknown[]): EventPayload[] {
  return frames.flatMap((frame) => translateFrame(state, frame).map((emission) => emission.payload));
}

const stream = (event: Record<string, unknown>) => ({ type: 'stream_event', event, parent_tool_use_id: null });

function blockStart(index: number) {
  return stream({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
}

function itemIds(list: EventPayload[]): string[] {
  return list.flatMap((payload) => (payload.type === 'item.started' ? [payload.item.id] : []));
}

describe('stream-json content blocks', () => {
  test('a block index of any size names its item <message id>:<index>', () => {
    const state = createTranslationState(OPTIONS);
    const list = payloads(state, [
      stream({ type: 'message_start', message: { id: 'msg_a' } }),
      blockStart(0),
      blockStart(1),
      blockStart(15),
      blockStart(16),
      blockStart(123),
      stream({ type: 'content_block_delta', index: 123, delta: { type: 'text_delta', text: 'late' } }),
    ]);
    expect(itemIds(list)).toEqual(['msg_a:0', 'msg_a:1', 'msg_a:15', 'msg_a:16', 'msg_a:123']);
    expect(list.at(-1)).toEqual({ type: 'item.delta', itemId: 'msg_a:123', kind: 'text', text: 'late' });
  });

  test("a message's first block at another index than 0 keeps its place; one at 0 comes after it", () => {
    const state = createTranslationState(OPTIONS);
    const list = payloads(state, [
      stream({ type: 'message_start', message: { id: 'msg_b' } }),
      blockStart(2),
      blockStart(0),
      blockStart(2),
      stream({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'two' } }),
      stream({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'zero' } }),
    ]);
    expect(itemIds(list)).toEqual(['msg_b:2', 'msg_b:0']);
    expect(list.filter((payload) => payload.type === 'passthrough')).toEqual([
      expect.objectContaining({ type: 'passthrough', reason: 'duplicate' }),
    ]);
    expect(list.filter((payload) => payload.type === 'item.delta').map((payload) => payload)).toEqual([
      { type: 'item.delta', itemId: 'msg_b:2', kind: 'text', text: 'two' },
      { type: 'item.delta', itemId: 'msg_b:0', kind: 'text', text: 'zero' },
    ]);
  });

  test('a hole in assistant content is skipped; an undefined block is malformed', () => {
    const state = createTranslationState(OPTIONS);
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
    const holed = [, { type: 'text', text: 'after a hole' }];
    const list = payloads(state, [
      { type: 'assistant', message: { id: 'msg_c', content: holed }, parent_tool_use_id: null },
      {
        type: 'assistant',
        message: { id: 'msg_d', content: [undefined, { type: 'text', text: 'after undefined' }] },
        parent_tool_use_id: null,
      },
    ]);
    const completed = list.flatMap((payload) => (payload.type === 'item.completed' ? [payload.item] : []));
    expect(completed).toEqual([
      { kind: 'agent_message', id: 'msg_c:1', status: 'completed', text: 'after a hole' },
      { kind: 'agent_message', id: 'msg_d:1', status: 'completed', text: 'after undefined' },
    ]);
    expect(list.filter((payload) => payload.type === 'passthrough')).toEqual([
      expect.objectContaining({ type: 'passthrough', reason: 'unparsable' }),
    ]);
  });
});

describe('stream-json tool results', () => {
  function toolTurn(content: unknown, isError = false): EventPayload | undefined {
    const state = createTranslationState(OPTIONS);
    const list = payloads(state, [
      {
        type: 'assistant',
        message: {
          id: 'msg_t',
          content: [{ type: 'tool_use', id: 'toolu_t', name: 'Bash', input: { command: 'ls' } }],
        },
        parent_tool_use_id: null,
      },
      {
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content, is_error: isError }],
        },
        parent_tool_use_id: null,
      },
    ]);
    return list.find((payload) => payload.type === 'item.completed');
  }

  test("a result's text parts are joined in order; other parts and holes add nothing", () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
    const parts = [{ type: 'text', text: 'one ' }, , { type: 'image' }, { type: 'text', text: 'two' }, 'three'];
    expect(toolTurn(parts)).toMatchObject({ item: { status: 'completed', output: { text: 'one two' }, exitCode: 0 } });
  });

  test('an error result that starts with the interrupt marker is cancelled; one that only contains it failed', () => {
    const marker = '[Request interrupted by user for tool use]';
    expect(toolTurn([{ type: 'text', text: marker }], true)).toMatchObject({ item: { status: 'cancelled' } });
    expect(toolTurn(`Exit code 1 ${marker}`, true)).toMatchObject({ item: { status: 'failed', exitCode: 1 } });
  });
});
