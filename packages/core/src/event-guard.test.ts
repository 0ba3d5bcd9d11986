import { describe, expect, it } from 'vitest';
import {
  isSerialisable,
  MAX_EVENT_DEPTH,
  MAX_NATIVE_FRAME_CHARS,
  MAX_NATIVE_FRAME_DEPTH,
  measureValue,
  nativeFrameRef,
} from './event-guard.js';
import { SessionEventStream } from './event-stream.js';
import type { EventPayload, ReinsEvent } from './events.js';
import { ReinsEventSchema } from './events.js';

function stream() {
  return new SessionEventStream({ harness: 'codex', sessionId: 's1', now: () => 1 });
}

function collect(s: SessionEventStream): ReinsEvent[] {
  const out: ReinsEvent[] = [];
  void (async () => {
    for await (const event of s.events) out.push(event);
  })();
  return out;
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function expectAllValid(events: ReinsEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, index) => index + 1));
  for (const event of events) {
    expect(ReinsEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 200)).toBe(true);
    expect(() => JSON.stringify(event)).not.toThrow();
  }
}

describe('isSerialisable', () => {
  it('accepts JSON data and refuses deep nesting, cycles and non-JSON values', () => {
    expect(isSerialisable({ a: [1, 'x', null, { b: true }] })).toBe(true);
    expect(isSerialisable(nested(MAX_EVENT_DEPTH - 1))).toBe(true);
    expect(isSerialisable(nested(50_000))).toBe(false);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(isSerialisable(cycle)).toBe(false);
    expect(isSerialisable({ n: 10n })).toBe(false);
    expect(isSerialisable({ f: () => 1 })).toBe(false);
  });

  it('says what measureValue says, also for a value checked while another is being checked', () => {
    const values: unknown[] = [
      null,
      1,
      'x',
      10n,
      Symbol('s'),
      [],
      {},
      nested(MAX_EVENT_DEPTH),
      nested(MAX_EVENT_DEPTH + 1),
    ];
    for (const value of values)
      for (const limit of [0, 1, 5, MAX_EVENT_DEPTH, 2000])
        expect(isSerialisable(value, limit)).toBe(measureValue(value, limit) !== undefined);
    // A getter that checks another value mid-walk: each walk keeps its own count (the deep one still fails).
    const inner: boolean[] = [];
    const outer = {
      get probe() {
        inner.push(isSerialisable({ ok: [1, 2] }), isSerialisable(nested(MAX_EVENT_DEPTH + 1)));
        return 'x';
      },
      rest: nested(MAX_EVENT_DEPTH),
    };
    expect(isSerialisable(outer)).toBe(false);
    expect(isSerialisable(outer, MAX_EVENT_DEPTH + 1)).toBe(true);
    expect(inner).toEqual([true, false, true, false]);
  });
});

describe('measureValue', () => {
  /** A seeded pseudo-random value: objects and arrays of scalars, shared references, now and then a non-JSON value. */
  function randomValue(seed: number): unknown {
    let state = seed;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const shared = { s: 'shared' };
    const make = (depth: number): unknown => {
      const roll = next();
      if (depth > 6 || roll < 0.3) {
        const scalars = ['x', 1, true, null, undefined, 2.5, ''];
        if (next() < 0.02) return [10n, () => 1, Symbol('s')][Math.floor(next() * 3)];
        return scalars[Math.floor(next() * scalars.length)];
      }
      if (roll < 0.35) return shared;
      const size = Math.floor(next() * 5);
      if (roll < 0.6) return Array.from({ length: size }, () => make(depth + 1));
      const object: Record<string, unknown> = {};
      for (let i = 0; i < size; i++) object[`k${i}`] = make(depth + 1);
      return object;
    };
    return make(0);
  }

  it('measures the same depth and object count by recursion as with its own stack (a limit past 1024)', () => {
    let refused = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(seed);
      const recursive = measureValue(value);
      expect(recursive, `seed ${seed}`).toEqual(measureValue(value, 100_000));
      if (recursive === undefined) refused++;
    }
    expect(refused).toBeGreaterThan(0); // the non-JSON values were met, and refused by both
  });

  it('counts shared objects at every place, walks own enumerable keys only, refuses past the limit', () => {
    const shared = { a: 1 };
    expect(measureValue({ x: shared, y: [shared, shared] })).toEqual({ depth: 3, objects: 5, chars: 5 });
    const inherited = Object.create({ hidden: { deep: true } }) as Record<string, unknown>;
    inherited.own = 'x';
    Object.defineProperty(inherited, 'quiet', { value: 10n, enumerable: false });
    expect(measureValue(inherited)).toEqual({ depth: 1, objects: 1, chars: 4 });
    expect(measureValue(nested(10), 10)).toEqual({ depth: 10, objects: 10, chars: 4 });
    expect(measureValue(nested(11), 10)).toBeUndefined();
    expect(measureValue(nested(5_000), 100_000)).toEqual({ depth: 5_000, objects: 5_000, chars: 4 });
    expect(measureValue('scalar')).toEqual({ depth: 0, objects: 0, chars: 6 });
    expect(measureValue(Symbol('s'))).toBeUndefined();
  });
});

describe('SessionEventStream guard', () => {
  it('replaces an event that breaks the schema by a passthrough keeping the frame, then warns once', async () => {
    const s = stream();
    const events = collect(s);
    s.startTurn({ text: 'hi' });
    const bad = { type: 'item.delta', itemId: 'm1', kind: 'text', text: { not: 'text' } } as unknown as EventPayload;
    s.emit(bad, { native: { source: 'codex.app-server', method: 'item/agentMessage/delta', frame: { x: 1 } } });
    s.emit(bad, { native: { source: 'codex.app-server', method: 'item/agentMessage/delta', frame: { x: 2 } } });
    s.completeTurn({ outcome: { status: 'completed' } });
    await settle();
    expectAllValid(events);
    expect(events.map((e) => e.type)).toEqual([
      'turn.started',
      'passthrough',
      'notice',
      'passthrough',
      'turn.completed',
    ]);
    expect(events[1]).toMatchObject({ reason: 'invalid_event', frame: { x: 1 } });
    expect(events[2]).toMatchObject({
      kind: 'warning',
      data: { reason: 'invalid_event', method: 'item/agentMessage/delta' },
    });
    expect(s.repaired).toBe(2);
  });

  it('keeps a terminal a terminal: an unreadable usage is dropped, an unreadable outcome fails the turn', async () => {
    const s = stream();
    const events = collect(s);
    s.startTurn({ text: 'a' });
    s.completeTurn({ outcome: { status: 'completed' }, usage: { turn: { input: -5 } } });
    s.startTurn({ text: 'b' });
    s.completeTurn({ outcome: { status: 'weird' } as never });
    await settle();
    expectAllValid(events);
    const terminals = events.filter((e) => e.type === 'turn.completed');
    expect(terminals).toHaveLength(2);
    expect(terminals[0]).toMatchObject({ outcome: { status: 'completed' } });
    expect(terminals[0]).not.toHaveProperty('usage');
    expect(terminals[1]).toMatchObject({ outcome: { status: 'failed', error: { code: 'protocol_error' } } });
  });

  it('truncates a native frame that cannot be serialised, never losing the seq', async () => {
    const s = stream();
    const events = collect(s);
    const deep = nested(50_000);
    s.emit({ type: 'passthrough', frame: deep }, { native: { source: 'x', frame: deep } });
    s.emit({ type: 'session.status', status: 'idle' }, { native: { source: 'x', frame: deep } });
    await settle();
    expectAllValid(events);
    expect(events.map((e) => e.type)).toEqual(['passthrough', 'notice', 'session.status']);
    expect(events[0]).toMatchObject({ type: 'passthrough', native: { frame: { reinsTruncated: true } } });
    expect(JSON.stringify(events[0]?.type === 'passthrough' ? events[0].frame : null)).toContain('reinsTruncated');
    expect(events[2]).toMatchObject({ native: { frame: { reinsTruncated: true } } });
  });

  it('turns a repeated item start or completion into a passthrough', async () => {
    const s = stream();
    const events = collect(s);
    s.startTurn({ text: 'a' });
    const item = { kind: 'agent_message', id: 'm1', status: 'running', text: '' } as const;
    s.emit({ type: 'item.started', item }, { native: { source: 'x', method: 'start', frame: 1 } });
    s.emit({ type: 'item.started', item }, { native: { source: 'x', method: 'start', frame: 2 } });
    s.emit({ type: 'item.completed', item: { ...item, status: 'completed', text: 'hi' } });
    s.emit({ type: 'item.completed', item: { ...item, status: 'completed', text: 'hi' } });
    s.completeTurn({ outcome: { status: 'completed' } });
    await settle();
    expectAllValid(events);
    expect(events.map((e) => (e.type === 'passthrough' ? `passthrough:${e.reason}` : e.type))).toEqual([
      'turn.started',
      'item.started',
      'passthrough:duplicate',
      'notice',
      'item.completed',
      'passthrough:duplicate',
      'notice', // another native method: its own warning
      'turn.completed',
    ]);
  });
});

describe('deep values inside an event', () => {
  it('a terminal whose error data nests too deep stays the terminal, with the deep part cut', async () => {
    const s = stream();
    const events = collect(s);
    s.startTurn({ text: 'a' });
    s.completeTurn({
      outcome: {
        status: 'failed',
        error: { code: 'provider_error', message: 'boom', data: { detail: nested(50_000) } },
      },
    });
    await settle();
    expectAllValid(events);
    const terminal = events.find((e) => e.type === 'turn.completed');
    expect(terminal).toMatchObject({
      outcome: { status: 'failed', error: { code: 'provider_error', message: 'boom' } },
    });
    expect(JSON.stringify(terminal)).toContain('reinsTruncated');
  });

  it('an item start with a deep tool input keeps its pair: started and completed under one id', async () => {
    const s = stream();
    const events = collect(s);
    s.startTurn({ text: 'a' });
    const tool = { kind: 'other' as const, name: 'x' };
    s.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't1', status: 'running', tool, input: nested(50_000) },
    });
    s.emit({ type: 'item.completed', item: { kind: 'tool_call', id: 't1', status: 'completed', tool, input: {} } });
    s.completeTurn({ outcome: { status: 'completed' } });
    await settle();
    expectAllValid(events);
    expect(events.map((e) => e.type)).toEqual([
      'turn.started',
      'item.started',
      'notice', // the one truncation warning
      'item.completed',
      'turn.completed',
    ]);
  });
});

describe('terminals and their native frames', () => {
  /** An object frame whose deepest value sits `depth` levels down (the frame itself is level 1). */
  function deepFrame(depth: number): Record<string, unknown> {
    return { method: 'turn/completed', params: { detail: nested(depth - 2) } };
  }

  it('a terminal or item end whose native frame nests 252 to 260 levels keeps its type, the copy marked', async () => {
    for (const depth of [252, 253, 254, 255, 256, 257, 260]) {
      const s = stream();
      const events = collect(s);
      s.startTurn({ text: 'a' });
      const item = { kind: 'agent_message', id: 'm1', status: 'running', text: '' } as const;
      s.emit({ type: 'item.started', item });
      const native = (method: string) => ({ source: 'codex.app-server', method, frame: deepFrame(depth) });
      s.emit({ type: 'item.completed', item: { ...item, status: 'completed' } }, { native: native('item/completed') });
      s.completeTurn({ outcome: { status: 'completed' } }, { native: native('turn/completed') });
      await settle();
      expectAllValid(events);
      expect(measureValue(deepFrame(depth), 10_000)?.depth).toBe(depth);
      const types = events.map((e) => e.type).filter((type) => type !== 'notice');
      expect(types, `depth ${depth}`).toEqual(['turn.started', 'item.started', 'item.completed', 'turn.completed']);
      expect(s.activeTurnId).toBeNull();
      const terminal = events.find((e) => e.type === 'turn.completed');
      expect(terminal).toMatchObject({ outcome: { status: 'completed' }, native: { method: 'turn/completed' } });
      const marked = depth > MAX_NATIVE_FRAME_DEPTH;
      expect(JSON.stringify(terminal?.native?.frame).includes('reinsTruncated'), `depth ${depth}`).toBe(marked);
    }
  });

  it('a native copy over MAX_NATIVE_FRAME_CHARS is replaced by a marker; the event and its own content stay', async () => {
    const s = stream();
    const events = collect(s);
    const big = 'x'.repeat(MAX_NATIVE_FRAME_CHARS + 1);
    s.startTurn({ text: 'a' });
    const item = { kind: 'agent_message', id: 'm1', status: 'completed', text: big } as const;
    s.emit({ type: 'item.completed', item }, { native: { source: 'x', method: 'done', frame: { text: big } } });
    s.emit({ type: 'notice', kind: 'info', message: 'line' }, { native: { source: 'x', frame: big } });
    s.completeTurn({ outcome: { status: 'completed' } });
    await settle();
    expectAllValid(events);
    const completed = events.find((e) => e.type === 'item.completed');
    expect(completed).toMatchObject({
      item: { text: big },
      native: { method: 'done', frame: { reinsTruncated: true } },
    });
    expect(events.find((e) => e.type === 'notice')).toMatchObject({ native: { frame: { reinsTruncated: true } } });
  });
});

describe('a native frame kept once', () => {
  it('the first event of a frame carries it whole, the others refer to that event by seq', async () => {
    const s = stream();
    const events = collect(s);
    const blocks = Array.from({ length: 4_000 }, (_, index) => ({ type: 'text', text: `block ${index}` }));
    const frame = { type: 'assistant', message: { content: blocks } };
    s.startTurn({ text: 'a' });
    for (let index = 0; index < blocks.length; index++) {
      const native = { source: 'claude.stream-json', method: 'assistant', frame };
      const item = { kind: 'agent_message', id: `m${index}`, status: 'completed', text: `block ${index}` } as const;
      s.emit({ type: 'item.completed', item }, { native });
    }
    const next = { type: 'result' };
    s.completeTurn({ outcome: { status: 'completed' } }, { native: { source: 'claude.stream-json', frame: next } });
    await settle();
    expectAllValid(events);
    const items = events.filter((e) => e.type === 'item.completed');
    expect(items).toHaveLength(4_000);
    expect(items[0]?.native?.frame).toBe(frame);
    for (const event of items.slice(1)) {
      expect(event.native).toEqual({
        source: 'claude.stream-json',
        method: 'assistant',
        frame: { reinsFrameRef: items[0]?.seq },
      });
      expect(nativeFrameRef(event.native?.frame)).toBe(items[0]?.seq);
    }
    // Linear: the native copies of all 4,000 events together are the frame once plus under 100 bytes each.
    const frameBytes = JSON.stringify(frame).length;
    const nativeBytes = items.reduce((sum, e) => sum + JSON.stringify(e.native).length, 0);
    expect(nativeBytes).toBeLessThan(frameBytes + 100 * items.length);
    // A new frame is carried whole again.
    expect(events.find((e) => e.type === 'turn.completed')?.native?.frame).toBe(next);
  });

  it('a frame first seen on an event without native copies (keepNative false) is carried by its passthrough', async () => {
    const s = new SessionEventStream({ harness: 'x', sessionId: 's', now: () => 1, keepNative: false });
    const events = collect(s);
    const frame = { odd: true };
    s.emit({ type: 'notice', kind: 'info', message: 'm' }, { native: { source: 'x', frame } });
    s.emit({ type: 'passthrough', frame }, { native: { source: 'x', frame } });
    s.emit({ type: 'passthrough', frame }, { native: { source: 'x', frame } });
    await settle();
    const passthroughs = events.filter((e) => e.type === 'passthrough');
    expect(events[0]).not.toHaveProperty('native');
    expect(passthroughs[0]?.native?.frame).toBe(frame);
    expect(passthroughs[1]?.native?.frame).toEqual({ reinsFrameRef: passthroughs[0]?.seq });
  });
});
