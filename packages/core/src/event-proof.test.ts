// provenValid, the guard's cheap proof for the event types a turn is made of, must never vouch for an
// event the full checks (ReinsEventSchema + isSerialisable) refuse: judged on seeded mutations of the
// events, their envelopes, their native frames and the objects inside them (item, input, outcome,
// usage). And it must actually prove the events adapters emit in every turn (else the fast path would
// silently never run).
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_DEPTH, measureValue } from './event-guard.js';
import { provenValid } from './event-proof.js';
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

/** The other events of every turn: its start, items, usage, terminal and status. */
const turnBases = (): Record<string, unknown>[] => {
  const envelope = { seq: 8, harness: 'codex', sessionId: 's', turnId: 'turn_1', at: 3 };
  const native = { source: 'codex', method: 'turn/completed', frame: frame() };
  return [
    { ...envelope, type: 'turn.started', input: { text: 'Say hi' } },
    {
      ...envelope,
      type: 'item.started',
      item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Say hi' },
    },
    {
      ...envelope,
      type: 'item.completed',
      item: {
        kind: 'user_message',
        id: 'u2',
        status: 'completed',
        text: 'x',
        replay: true,
        clientMessageId: 'c',
        origin: 'user',
      },
    },
    {
      ...envelope,
      type: 'item.started',
      item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' },
      native,
    },
    {
      ...envelope,
      type: 'item.completed',
      item: { kind: 'reasoning', id: 'r1', status: 'completed', text: 'hm', summary: 's' },
    },
    {
      ...envelope,
      type: 'usage.updated',
      turn: { input: 20, output: 6, cachedInput: 0 },
      total: { input: 200, output: 60, reasoning: 1, total: 261, cacheWrite: 2 },
      context: { used: 20, window: 200_000 },
      costUsd: { amount: 0.01, currency: 'USD', source: 'provider' },
      native,
    },
    {
      ...envelope,
      type: 'turn.completed',
      outcome: { status: 'completed' },
      usage: {
        turn: { input: 20, output: 6 },
        context: { used: 20 },
        costUsd: { amount: 0, currency: 'USD', source: 'derived' },
      },
      stopReason: 'end_turn',
      native,
    },
    { ...envelope, type: 'turn.completed', outcome: { status: 'cancelled' }, turnId: null },
    {
      ...envelope,
      type: 'turn.completed',
      outcome: {
        status: 'failed',
        error: { code: 'provider_error', message: 'The provider answered 500.', retryable: true },
      },
    },
    { ...envelope, type: 'session.status', status: 'running' },
    {
      ...envelope,
      type: 'item.started',
      item: {
        kind: 'tool_call',
        id: 't1',
        status: 'running',
        tool: { kind: 'command', name: 'Bash', title: 'ls' },
        input: { command: ['ls', '-la'], cwd: '/w' },
      },
    },
    {
      ...envelope,
      type: 'item.completed',
      item: {
        kind: 'tool_call',
        id: 't2',
        status: 'completed',
        tool: { kind: 'file_change', name: 'Edit' },
        input: { path: 'a.ts', edits: [{ old: 'x', new: 'y' }] },
        output: { text: 'done', structured: { stdout: 'ok', lines: [1, 2] } },
        exitCode: 0,
        changes: [
          { path: 'a.ts', kind: 'update', diff: '-x\n+y' },
          { path: 'b.ts', kind: 'move', movePath: 'c.ts' },
        ],
      },
      native,
    },
  ];
};
/** Every key the payloads above have, and one they do not. */
const TURN_KEYS = [
  ...KEYS_OF_ENVELOPE(),
  'input',
  'item',
  'kind',
  'id',
  'status',
  'text',
  'summary',
  'replay',
  'clientMessageId',
  'origin',
  'images',
  'turn',
  'total',
  'context',
  'costUsd',
  'used',
  'window',
  'amount',
  'currency',
  'source',
  'cachedInput',
  'cacheWrite',
  'output',
  'reasoning',
  'outcome',
  'error',
  'code',
  'message',
  'retryable',
  'data',
  'usage',
  'stopReason',
  'structuredOutput',
  'tool',
  'name',
  'title',
  'exitCode',
  'changes',
  'path',
  'diff',
  'movePath',
  'structured',
  'command',
  'extra',
];
function KEYS_OF_ENVELOPE(): string[] {
  return ['type', 'seq', 'harness', 'sessionId', 'turnId', 'at', 'parentItemId', 'native'];
}

const isItem = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Every object inside `value` (itself first, arrays looked into), for a mutation to land in; cycles are not followed. */
function objectsIn(value: unknown, seen = new Set<unknown>()): Record<string, unknown>[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  // An array is not a target itself; the objects in it are (a tool call's changes).
  if (Array.isArray(value)) return value.flatMap((child) => objectsIn(child, seen));
  const found = [value as Record<string, unknown>];
  for (const child of Object.values(value)) found.push(...objectsIn(child, seen));
  return found;
}

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
  'completed',
  'failed',
  'running',
  'agent_message',
  'user_message',
  'provider_error',
  'USD',
  'provider',
  { status: 'completed' },
  { text: 'x' },
  { input: 1 },
  { input: -1 },
  { kind: 'agent_message', id: 'm', status: 'completed', text: 't' },
  { code: 'timeout', message: 'm' },
  'tool_call',
  'command',
  'update',
  { kind: 'command', name: 'Bash' },
  [{ path: 'a', kind: 'add' }],
  [{ path: 'a', kind: 'rename' }],
  [1, [2, { x: 3 }]],
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
    for (const event of [...bases(), ...turnBases()]) {
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

  it('never vouches for a turn event the schema or the walk refuses, mutated inside its objects too', () => {
    let seed = 33;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: the low ones of this generator repeat with a short period.
      return Math.floor(seed / 65536) % n;
    };
    const tally = new Map<unknown, { proven: number; refused: number }>();
    for (let index = 0; index < 15_000; index++) {
      const bases = turnBases();
      const event = bases[random(bases.length)] as Record<string, unknown>;
      // Per type, and per item kind (a tool call and a text item are proven apart).
      const type = `${String(event.type)}${isItem(event.item) ? `:${String(event.item.kind)}` : ''}`;
      for (let count = 1 + random(3); count > 0; count--) {
        const targets = objectsIn(event);
        const target = targets[random(targets.length)] as Record<string, unknown>;
        const key = TURN_KEYS[random(TURN_KEYS.length)] as string;
        const values = pool();
        if (random(4) === 0) delete target[key];
        else target[key] = values[random(values.length)];
      }
      const valid = fullyValid(event);
      const entry = tally.get(type) ?? { proven: 0, refused: 0 };
      tally.set(type, entry);
      if (!valid) entry.refused++;
      if (provenValid(event as unknown as ReinsEvent, nativeMeasure(event))) {
        entry.proven++;
        expect(
          valid,
          JSON.stringify(event, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value)).slice(0, 400),
        ).toBe(true);
      }
    }
    // Every type was proven often and refused often.
    for (const [type, { proven, refused }] of tally) {
      expect(proven, `${String(type)}: ${proven} proven, ${refused} refused`).toBeGreaterThan(100);
      expect(refused, String(type)).toBeGreaterThan(100);
    }
  });

  it("judges a tool call's fields as the schema and the walk do, to the last level of depth", () => {
    const envelope = { seq: 9, harness: 'codex', sessionId: 's', turnId: 'turn_1', at: 1 };
    const call = (fields: Record<string, unknown>) => ({
      ...envelope,
      type: 'item.completed',
      item: { kind: 'tool_call', id: 't', status: 'completed', tool: { kind: 'command', name: 'Bash' }, ...fields },
    });
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{}, true],
      [{ exitCode: -1, changes: [{ path: 'a', kind: 'add' }] }, true],
      [{ input: nested(MAX_EVENT_DEPTH - 2), output: { structured: nested(MAX_EVENT_DEPTH - 3) } }, true],
      [{ input: nested(MAX_EVENT_DEPTH - 1) }, false],
      [{ output: { structured: nested(MAX_EVENT_DEPTH - 2) } }, false],
      [{ input: { n: 10n } }, false],
      [{ input: cycle() }, false],
      [{ exitCode: 1.5 }, false],
      [{ exitCode: 2 ** 60 }, false],
      [{ exitCode: '0' }, false],
      [{ changes: [{ path: 'a', kind: 'rename' }] }, false],
      [{ changes: [{ kind: 'add' }] }, false],
      [{ changes: [{ path: 'a', kind: 'add', diff: 1 }] }, false],
      [{ changes: [{ path: 'a', kind: 'add' }, 'b'] }, false],
      [{ changes: { path: 'a', kind: 'add' } }, false],
      [{ output: { text: 1 } }, false],
      [{ output: 'done' }, false],
      [{ tool: { kind: 'shell', name: 'Bash' } }, false],
      [{ tool: { kind: 'command' } }, false],
      [{ tool: { kind: 'command', name: 'Bash', title: 7 } }, false],
    ];
    for (const [index, [fields, valid]] of cases.entries()) {
      const event = call(fields);
      expect(fullyValid(event), `case ${index}`).toBe(valid);
      expect(provenValid(event as unknown as ReinsEvent, undefined), `case ${index}`).toBe(valid);
    }
  });

  it('leaves the shapes it does not cover to the full checks', () => {
    const envelope = { seq: 1, harness: 'codex', sessionId: 's', turnId: 'turn_1', at: 1 };
    const valid = [
      { ...envelope, type: 'turn.started', input: { text: 'look', images: [{ source: 'path', path: '/a.png' }] } },
      {
        ...envelope,
        type: 'item.started',
        item: { kind: 'plan', id: 'p', status: 'running', entries: [{ text: 'a', status: 'pending' }] },
      },
      {
        ...envelope,
        type: 'turn.completed',
        outcome: { status: 'failed', error: { code: 'provider_error', message: 'x', data: { status: 500 } } },
      },
      { ...envelope, type: 'turn.completed', outcome: { status: 'completed' }, structuredOutput: { ok: true } },
      { ...envelope, type: 'notice', kind: 'info', message: 'hello' },
    ];
    for (const event of valid) {
      expect(fullyValid(event), JSON.stringify(event)).toBe(true);
      expect(provenValid(event as unknown as ReinsEvent, undefined), JSON.stringify(event)).toBe(false);
    }
  });
});
