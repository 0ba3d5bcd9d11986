import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { eventPartFrames, isBigEvent, shrunkEventFrame } from './event-parts.js';
import type { PublishedEvent } from './session-log.js';

function published(event: ReinsEvent): PublishedEvent {
  return { seq: event.seq, event, json: JSON.stringify(event) };
}

function userTurn(text: string, image: string): ReinsEvent {
  return {
    type: 'turn.started',
    input: { text, images: [{ source: 'data', mediaType: 'image/png', data: image }] },
    seq: 7,
    harness: 'codex',
    sessionId: 's1',
    turnId: 'turn_1',
    at: 1,
  } as ReinsEvent;
}

const parse = (frame: Buffer) => JSON.parse(frame.toString('utf8'));

describe('event parts', () => {
  it('cuts a big event into bounded session/eventPart frames whose data joins to its JSON', () => {
    // Emoji (surrogate pairs) straddle every cut point of 1,000-character parts.
    const event = published(userTurn('😀'.repeat(5_000), 'A'.repeat(20_001)));
    expect(isBigEvent(event, 1_000)).toBe(true);
    const frames = eventPartFrames('s1', event, 1_000);
    expect(frames.length).toBeGreaterThan(30);
    const params = frames.map((frame) => parse(frame).params);
    for (const [index, part] of params.entries()) {
      expect(parse(frames[index] as Buffer).method).toBe('session/eventPart');
      expect(part).toMatchObject({ sessionId: 's1', seq: 7, index, count: frames.length });
      expect(part.data.length).toBeLessThanOrEqual(1_000);
      // No part ends in half a surrogate pair: each is well-formed text on its own.
      expect(part.data).toBe(part.data.toWellFormed());
    }
    expect(params.map((part) => part.data).join('')).toBe(event.json);
  });

  it('an event below the bound is not big', () => {
    const event = published(userTurn('hi', 'AAAA'));
    expect(isBigEvent(event)).toBe(false);
    expect(isBigEvent(event, event.json.length)).toBe(false);
    expect(isBigEvent(event, event.json.length - 1)).toBe(true);
  });

  it('shrinks an event for a client without parts: long strings cut and marked, the rest kept', () => {
    const image = 'B'.repeat(3 * 1024 * 1024);
    const event = published(userTurn('look at this', image));
    const frame = parse(shrunkEventFrame('s1', event));
    expect(frame.method).toBe('session/event');
    expect(frame.params.sessionId).toBe('s1');
    const shrunk = frame.params.event;
    expect(shrunk).toMatchObject({ type: 'turn.started', seq: 7, turnId: 'turn_1', input: { text: 'look at this' } });
    const data: string = shrunk.input.images[0].data;
    expect(data.startsWith('B'.repeat(1024))).toBe(true);
    expect(data).toContain(`reinsTruncated: ${image.length} characters`);
    expect(data.length).toBeLessThan(2_000);
    expect(JSON.stringify(shrunk).length).toBeLessThan(4_000);
  });
});
