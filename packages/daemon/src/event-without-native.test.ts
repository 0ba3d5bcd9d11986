import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { withoutNative } from './event-without-native.js';
import type { PublishedEvent } from './session-log.js';

const base = {
  type: 'item.delta',
  itemId: 'i1',
  kind: 'text',
  seq: 4,
  harness: 'codex',
  sessionId: 's1',
  turnId: 't1',
  at: 1,
};

function live(event: Record<string, unknown>): PublishedEvent {
  return { seq: 4, event: event as unknown as ReinsEvent, json: JSON.stringify(event) };
}

/** A text read back from the store: its object only by parsing (as session-log.ts's StoredEvent). */
class Stored implements PublishedEvent {
  readonly seq = 4;
  constructor(readonly json: string) {}
  get event(): ReinsEvent {
    return JSON.parse(this.json) as ReinsEvent;
  }
}
const stored = (event: Record<string, unknown>) => new Stored(JSON.stringify(event));

describe('withoutNative', () => {
  const native = { source: 'codex.app-server', method: 'item/agentMessage/delta', frame: { params: { delta: 'hi' } } };

  it('drops the native frame and keeps every other field, in their order', () => {
    const out = withoutNative(live({ ...base, text: 'hi', native }));
    expect(out.json).toBe(JSON.stringify({ ...base, text: 'hi' }));
    expect(out.event).toEqual({ ...base, text: 'hi' });
    expect(out.seq).toBe(4);
  });

  it('hands back an event with no native frame as it is, even when its text mentions one', () => {
    const plain = live({ ...base, text: 'say "native": yes' });
    expect(withoutNative(plain)).toBe(plain);
    const keyed = live({ ...base, text: 'x', data: { native: 'a field of the payload' } });
    expect(withoutNative(keyed)).toBe(keyed);
  });

  it('makes the variant of a live event once for every connection', () => {
    const event = live({ ...base, text: 'hi', native });
    expect(withoutNative(event)).toBe(withoutNative(event));
  });

  it('strips a stored text too, without keeping its parse', () => {
    const text = stored({ ...base, text: 'hi', native });
    const out = withoutNative(text);
    expect(JSON.parse(out.json)).toEqual({ ...base, text: 'hi' });
    expect(withoutNative(text)).not.toBe(out);
  });
});
