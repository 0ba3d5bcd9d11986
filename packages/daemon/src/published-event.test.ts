import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { LiveEvent, withoutNative } from './published-event.js';
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
const native = { source: 'codex.app-server', method: 'item/agentMessage/delta', frame: { params: { delta: 'hi' } } };
const event = (fields: Record<string, unknown>) => fields as unknown as ReinsEvent;

/** A text read back from the store: its object only by parsing (as session-log.ts's StoredEvent). */
class Stored implements PublishedEvent {
  readonly seq = 4;
  constructor(readonly json: string) {}
  get event(): ReinsEvent {
    return JSON.parse(this.json) as ReinsEvent;
  }
}

describe('LiveEvent', () => {
  it('leaves the event as it was once its form without the native frame is made', () => {
    const live = event({ ...base, text: 'hi', native });
    const out = new LiveEvent(live);
    expect(out.json).toBe(JSON.stringify(live));
    withoutNative(out);
    expect(out.event).toBe(live);
    expect(live.native).toBe(native);
    expect(Object.keys(live)).toEqual([...Object.keys(base), 'text', 'native']);
  });
});

describe('withoutNative', () => {
  it('drops the native frame and keeps every other field, in their order, made once for every connection', () => {
    const out = new LiveEvent(event({ ...base, text: 'hi', native }));
    const bare = withoutNative(out);
    expect(bare.json).toBe(JSON.stringify({ ...base, text: 'hi' }));
    expect(bare.event).toEqual({ ...base, text: 'hi' });
    expect(bare.seq).toBe(4);
    expect(withoutNative(out)).toBe(bare);
  });

  it('hands back an event with no native frame as it is, even when its text mentions one', () => {
    const plain = new LiveEvent(event({ ...base, text: 'say "native": yes' }));
    expect(withoutNative(plain)).toBe(plain);
    const keyed = new Stored(JSON.stringify({ ...base, text: 'x', data: { native: 'a field of the payload' } }));
    expect(withoutNative(keyed)).toBe(keyed);
  });

  it('strips a stored text (or a mirrored event) too, once for every connection', () => {
    const text = new Stored(JSON.stringify({ ...base, text: 'hi', native }));
    const out = withoutNative(text);
    expect(out.json).toBe(JSON.stringify({ ...base, text: 'hi' }));
    expect(out.event).toEqual({ ...base, text: 'hi' });
    expect(withoutNative(text)).toBe(out);
  });
});
