// provenValid, the guard's cheap proof for the hot event types, must never vouch for an event the
// full checks (ReinsEventSchema + isSerialisable) refuse: judged on seeded mutations of item.delta
// and passthrough events, their envelopes and native frames. And it must actually prove the events
// adapters emit every second (else the fast path would silently never run).
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_DEPTH, measureValue, provenValid } from './event-guard.js';
import { type ReinsEvent, ReinsEventSchema } from './events.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
}

const frame = () => ({ method: 'item/agentMessage/delta', params: { threadId: 't', itemId: 'msg_1', delta: 'Hi' } });
const bases = (): Record<string, unknown>[] => {
  const shared = frame();
  return [
    {
      type: 'item.delta',
      seq: 3,
      harness: 'codex',
      sessionId: 's',
      turnId: 'turn_1',
      at: 1,
      itemId: 'msg_1',
      kind: 'text',
      text: 'Hi',
    },
    {
      type: 'item.delta',
      seq: 4,
      harness: 'codex',
      sessionId: 's',
      turnId: null,
      at: 1,
      itemId: 'm',
      kind: 'tool_input',
      text: '',
      parentItemId: 'p',
      native: { source: 'codex', method: 'x', frame: frame() },
    },
    {
      type: 'passthrough',
      seq: 5,
      harness: 'claude-code',
      sessionId: 's',
      turnId: 'turn_1',
      at: 2,
      frame: 'not json',
      reason: 'unparsable',
      native: { source: 'claude-code', frame: 'not json' },
    },
    {
      type: 'passthrough',
      seq: 6,
      harness: 'codex',
      sessionId: 's',
      turnId: null,
      at: 2,
      frame: shared,
      native: { source: 'codex', method: 'm', frame: shared },
    },
    { type: 'passthrough', seq: 7, harness: 'codex', sessionId: 's', turnId: null, at: 2, frame: { a: [1, 2] } },
  ];
};

const cycle = (): unknown => {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
};
const pool = (): unknown[] => [
  undefined,
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'text',
  'turn_1',
  true,
  10n,
  () => 1,
  Symbol('s'),
  {},
  [],
  ['a'],
  { source: 'codex' },
  { source: 'codex', frame: 1n },
  nested(MAX_EVENT_DEPTH - 3),
  nested(MAX_EVENT_DEPTH - 2),
  nested(MAX_EVENT_DEPTH),
  cycle(),
  'unknown',
  'bogus',
];
const KEYS = [
  'type',
  'seq',
  'harness',
  'sessionId',
  'turnId',
  'at',
  'itemId',
  'kind',
  'text',
  'parentItemId',
  'frame',
  'reason',
  'native',
  'extra',
];
const NATIVE_KEYS = ['source', 'method', 'frame', 'extra'];

/** The full checks, as SessionEventStream runs them when provenValid says no. */
const fullyValid = (event: unknown) => ReinsEventSchema.safeParse(event).success && measureValue(event) !== undefined;

/** What NativeFrameCheck hands provenValid for this event's native frame. */
function nativeMeasure(event: Record<string, unknown>) {
  const native = event.native as Record<string, unknown> | undefined;
  return native !== null && typeof native === 'object' ? measureValue(native.frame) : undefined;
}

describe('provenValid', () => {
  it('proves the events adapters emit all the time', () => {
    for (const event of bases()) {
      expect(fullyValid(event)).toBe(true);
      expect(provenValid(event as unknown as ReinsEvent, nativeMeasure(event)), JSON.stringify(event)).toBe(true);
    }
  });

  it('never vouches for an event the schema or the serialisability walk refuses (seeded mutations)', () => {
    let seed = 21;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let proven = 0;
    let refused = 0;
    for (let index = 0; index < 20_000; index++) {
      const event = bases()[random(5)] as Record<string, unknown>;
      for (let count = 1 + random(3); count > 0; count--) {
        const values = pool();
        if (random(3) === 0 && event.native && typeof event.native === 'object') {
          const native = event.native as Record<string, unknown>;
          const key = NATIVE_KEYS[random(NATIVE_KEYS.length)] as string;
          if (random(4) === 0) delete native[key];
          else native[key] = values[random(values.length)];
        } else {
          const key = KEYS[random(KEYS.length)] as string;
          if (random(4) === 0) delete event[key];
          else event[key] = values[random(values.length)];
        }
      }
      const valid = fullyValid(event);
      if (!valid) refused++;
      if (provenValid(event as unknown as ReinsEvent, nativeMeasure(event))) {
        proven++;
        expect(valid, String(Object.keys(event))).toBe(true);
      }
    }
    // Both sides were exercised.
    expect(proven).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(1000);
  });

  it('leaves the event types it does not know to the full checks', () => {
    const started = {
      type: 'turn.started',
      seq: 1,
      harness: 'codex',
      sessionId: 's',
      turnId: 'turn_1',
      at: 1,
      input: { text: '' },
    };
    expect(provenValid(started as unknown as ReinsEvent, undefined)).toBe(false);
  });
});
