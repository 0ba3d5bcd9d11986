// Re-enveloping: seq and session id always; turn and item ids only from the second process on.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { generationId, newNativeCarrier, reenvelope } from './envelope.js';

const base = { seq: 3, harness: 'codex', sessionId: 'adapter-id', turnId: 'turn_1', at: 5 } as const;

describe('reenvelope', () => {
  it('gives the daemon seq and session id, and leaves generation 0 ids alone', () => {
    const event: ReinsEvent = { ...base, type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'hi' };
    expect(reenvelope(event, { seq: 40, sessionId: 'daemon-id', generation: 0, carrier: newNativeCarrier() })).toEqual({
      ...event,
      seq: 40,
      sessionId: 'daemon-id',
    });
  });

  it('prefixes turn, item and parent ids of a later process, and nothing else', () => {
    const fields = { seq: 41, sessionId: 'daemon-id', generation: 2, carrier: newNativeCarrier() };
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

  it('re-points a native frame reference at the logged seq of the event that carries the frame', () => {
    const frame = { type: 'assistant', content: ['a', 'b', 'c'] };
    const native = (value: unknown) => ({ source: 'claude.stream-json', method: 'assistant', frame: value });
    const carrier = newNativeCarrier();
    const fields = (seq: number) => ({ seq, sessionId: 'daemon-ref', generation: 1, carrier });
    const event = (seq: number, value: unknown): ReinsEvent => ({
      ...base,
      seq,
      type: 'notice',
      kind: 'info',
      message: 'm',
      native: native(value),
    });
    // The adapter's seq 5 carries the frame; the daemon logs it as 20, then says something itself (21).
    expect(reenvelope(event(5, frame), fields(20)).native?.frame).toBe(frame);
    expect(reenvelope(event(6, { reinsFrameRef: 5 }), fields(22)).native).toEqual(native({ reinsFrameRef: 20 }));
    expect(reenvelope(event(7, { reinsFrameRef: 5 }), fields(23)).native).toEqual(native({ reinsFrameRef: 20 }));
    // Another stream (another generation) keeps its own carrier.
    const other = reenvelope(event(6, { reinsFrameRef: 5 }), {
      seq: 50,
      sessionId: 'daemon-ref',
      generation: 2,
      carrier: newNativeCarrier(),
    });
    expect(other.native?.frame).toEqual({ reinsFrameRef: 49 });
    // A new frame is a new carrier; a truncation marker or a scalar frame is no carrier.
    reenvelope(event(8, { other: true }), fields(24));
    reenvelope(event(9, { reinsTruncated: true, reason: 'r' }), fields(27));
    expect(reenvelope(event(10, { reinsFrameRef: 8 }), fields(28)).native?.frame).toEqual({ reinsFrameRef: 24 });
  });
});
