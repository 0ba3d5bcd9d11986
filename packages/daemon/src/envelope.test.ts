// Re-enveloping: seq and session id always; turn and item ids only from the second process on.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { generationId, reenvelope } from './envelope.js';

const base = { seq: 3, harness: 'codex', sessionId: 'adapter-id', turnId: 'turn_1', at: 5 } as const;

describe('reenvelope', () => {
  it('gives the daemon seq and session id, and leaves generation 0 ids alone', () => {
    const event: ReinsEvent = { ...base, type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'hi' };
    expect(reenvelope(event, { seq: 40, sessionId: 'daemon-id', generation: 0 })).toEqual({
      ...event,
      seq: 40,
      sessionId: 'daemon-id',
    });
  });

  it('prefixes turn, item and parent ids of a later process, and nothing else', () => {
    const fields = { seq: 41, sessionId: 'daemon-id', generation: 2 };
    const item = {
      kind: 'tool_call',
      id: 'call_1',
      status: 'running',
      tool: { kind: 'command', name: 'sh' },
      input: {},
    } as const;
    expect(reenvelope({ ...base, type: 'item.started', item, parentItemId: 'task_1' }, fields)).toMatchObject({
      seq: 41,
      sessionId: 'daemon-id',
      turnId: 'r2.turn_1',
      parentItemId: 'r2.task_1',
      item: { id: 'r2.call_1', tool: { name: 'sh' } },
    });
    expect(
      reenvelope({ ...base, type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'hi' }, fields),
    ).toMatchObject({
      itemId: 'r2.msg_1',
      text: 'hi',
    });
    const permission: ReinsEvent = {
      ...base,
      turnId: null,
      type: 'permission.requested',
      requestId: 'req-1',
      itemId: 'call_1',
      tool: { kind: 'command', name: 'sh' },
      options: [],
    };
    // The request id is the harness's own: a client answers it as it came.
    expect(reenvelope(permission, fields)).toMatchObject({ turnId: null, requestId: 'req-1', itemId: 'r2.call_1' });
    expect(generationId('turn_1', 0)).toBe('turn_1');
    expect(generationId('turn_1', 1)).toBe('r1.turn_1');
  });
});
