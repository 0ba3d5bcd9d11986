// session/events framing: every event once, in order, as the exact JSON the log made; frames bounded
// by count and bytes (one oversized event alone); each frame a notification the client's schema
// takes.

import type { ReinsEvent } from '@reins/core';
import { SESSION_EVENTS, SessionEventsParamsSchema } from '@reins/protocol';
import { describe, expect, it } from 'vitest';
import { BATCH_LIMITS, batchFrames } from './event-batch.js';
import type { PublishedEvent } from './session-log.js';

function published(seq: number, text = `delta ${seq}`): PublishedEvent {
  const event = {
    type: 'item.delta',
    seq,
    harness: 'codex',
    sessionId: 's1',
    turnId: 'turn_1',
    at: 1,
    itemId: 'msg_1',
    kind: 'text',
    text,
  } as ReinsEvent;
  return { seq, event, json: JSON.stringify(event) };
}

const run = (from: number, count: number, text?: (seq: number) => string) =>
  Array.from({ length: count }, (_, index) => published(from + index, text?.(from + index)));

function parse(frame: Buffer) {
  const message = JSON.parse(frame.toString('utf8'));
  expect(message).toMatchObject({ jsonrpc: '2.0', method: SESSION_EVENTS });
  expect('id' in message).toBe(false);
  const params = SessionEventsParamsSchema.parse(message.params);
  return { params, raw: message.params.events as unknown[] };
}

describe('batchFrames', () => {
  it('carries every event once, in order, each exactly as the log serialized it', () => {
    const events = run(7, 1_300);
    const frames = batchFrames('s1', events);
    const carried = frames.flatMap((frame) => parse(frame).raw);
    expect(carried.map((event) => JSON.stringify(event))).toEqual(events.map((entry) => entry.json));
    for (const frame of frames) expect(parse(frame).params.sessionId).toBe('s1');
  });

  it('cuts at the count bound', () => {
    const frames = batchFrames('s1', run(1, 1_300), { maxEvents: 500, maxBytes: 1 << 30 });
    expect(frames.map((frame) => parse(frame).raw.length)).toEqual([500, 500, 300]);
    expect(BATCH_LIMITS.maxEvents).toBeLessThanOrEqual(1_000);
  });

  it('cuts at the byte bound, counting UTF-8 bytes, and no frame holds more unless one event alone does', () => {
    // 'é' is two bytes in UTF-8 and one UTF-16 unit: a bound on string length would let frames grow twice as big.
    const events = run(1, 60, (seq) => 'é'.repeat(seq === 30 ? 5_000 : 400));
    const maxBytes = 4_000;
    const frames = batchFrames('s1', events, { maxEvents: 1_000, maxBytes });
    const sizes = frames.map((frame) =>
      parse(frame).raw.reduce<number>((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0),
    );
    const counts = frames.map((frame) => parse(frame).raw.length);
    for (const [index, size] of sizes.entries()) {
      if (counts[index] === 1) continue;
      expect(size).toBeLessThanOrEqual(maxBytes);
    }
    // The 5,000-character event (10 KB) is larger than the bound: it has a frame of its own.
    const alone = frames.findIndex((frame) => parse(frame).raw.some((event) => (event as ReinsEvent).seq === 30));
    expect(counts[alone]).toBe(1);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(60);
    // Each frame is as full as the bound allows: no two neighbours would fit in one.
    for (let index = 1; index < sizes.length; index++) {
      expect((sizes[index - 1] ?? 0) + (sizes[index] ?? 0)).toBeGreaterThan(maxBytes);
    }
  });

  it('makes no frame of nothing, and keeps a session id that needs escaping intact', () => {
    expect(batchFrames('s1', [])).toEqual([]);
    const [frame] = batchFrames('odd "id"\n', run(1, 2));
    expect(frame && parse(frame).params.sessionId).toBe('odd "id"\n');
  });

  it('stays far below the daemon buffer cap (16 MiB) per frame', () => {
    expect(BATCH_LIMITS.maxBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
