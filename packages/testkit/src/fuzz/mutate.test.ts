import { describe, expect, it } from 'vitest';
import {
  deeplyNested,
  FRAME_MUTATIONS,
  type FrameMutationKind,
  INHERITED_NAMES,
  MUTATION_KINDS,
  type MutationKind,
  mutateFrame,
  mutateSequence,
  UNKNOWN_VALUE,
} from './mutate.js';
import { caseSeed, createRandom } from './random.js';

const frames = (): unknown[] => [
  { method: 'thread/started', params: { thread: { id: 't1', status: { type: 'idle' } } } },
  { method: 'item/started', params: { item: { type: 'agentMessage', id: 'i1', text: 'hello there' } } },
  { method: 'item/completed', params: { item: { type: 'agentMessage', id: 'i1', text: 'hello there' } } },
  { method: 'turn/completed', params: { turn: { id: 'u1', status: 'completed', items: [1, 2, 3] } } },
];

const only = (kind: MutationKind) =>
  Object.fromEntries(MUTATION_KINDS.map((other) => [other, other === kind ? 1 : 0])) as Record<MutationKind, number>;

function depthOf(value: unknown): number {
  let depth = 0;
  let node = value;
  while (typeof node === 'object' && node !== null) {
    depth++;
    node = Array.isArray(node) ? node[0] : Object.values(node)[0];
  }
  return depth;
}

describe('random', () => {
  it('is the same for the same seed, different for another, and in range', () => {
    const a = createRandom(42);
    const b = createRandom(42);
    const c = createRandom(43);
    const draws = Array.from({ length: 100 }, () => [a.next(), b.next(), c.next()]);
    expect(draws.every(([x, y]) => x === y)).toBe(true);
    expect(draws.some(([x, , z]) => x !== z)).toBe(true);
    expect(draws.every(([x]) => (x as number) >= 0 && (x as number) < 1)).toBe(true);
    const ints = Array.from({ length: 1000 }, () => a.int(7));
    expect(new Set(ints)).toEqual(new Set([0, 1, 2, 3, 4, 5, 6]));
  });

  it('gives each case its own seed from the run seed and index alone', () => {
    expect(caseSeed(1, 5)).toBe(caseSeed(1, 5));
    expect(new Set(Array.from({ length: 1000 }, (_, index) => caseSeed(1, index))).size).toBe(1000);
    expect(caseSeed(1, 5)).not.toBe(caseSeed(2, 5));
  });

  it('weighted never picks a zero weight', () => {
    const random = createRandom(7);
    const picks = Array.from({ length: 500 }, () =>
      random.weighted([
        ['a', 0],
        ['b', 1],
        ['c', 3],
      ] as const),
    );
    expect(picks).not.toContain('a');
    expect(picks.filter((pick) => pick === 'c').length).toBeGreaterThan(picks.filter((pick) => pick === 'b').length);
  });
});

describe('mutateSequence', () => {
  it('is deterministic per seed and never changes its input', () => {
    const input = frames();
    const before = JSON.stringify(input);
    const first = mutateSequence(input, createRandom(9), { maxMutations: 4 });
    const second = mutateSequence(frames(), createRandom(9), { maxMutations: 4 });
    expect(first.mutations).toEqual(second.mutations);
    expect(JSON.stringify(first.frames)).toEqual(JSON.stringify(second.frames));
    expect(JSON.stringify(input)).toBe(before);
  });

  it('freezes what it returns, so a translator writing into a frame fails loudly', () => {
    const { frames: out } = mutateSequence(frames(), createRandom(3), { weights: only('drop-field') });
    for (const frame of out) expect(Object.isFrozen(frame)).toBe(true);
    expect(() => {
      (out[0] as { method: string }).method = 'x';
    }).toThrow(TypeError);
  });

  it.each(FRAME_MUTATIONS)('%s changes exactly one frame, and says where', (kind) => {
    for (let seed = 0; seed < 20; seed++) {
      const input = frames();
      const result = mutateSequence(input, createRandom(seed), {
        weights: only(kind),
        maxMutations: 1,
        enumFields: [{ key: 'status', values: ['completed', 'failed', 'interrupted'] }],
        hugeStringLength: 1000,
        nestingDepth: 500,
      });
      expect(result.mutations).toHaveLength(1);
      const mutation = result.mutations[0] as (typeof result.mutations)[number];
      expect(mutation.kind).toBe(kind);
      const changed = result.frames.filter((frame, index) => JSON.stringify(frame) !== JSON.stringify(input[index]));
      expect(changed).toHaveLength(1);
      expect(result.frames[mutation.frame]).not.toEqual(input[mutation.frame]);
    }
  });

  it('unknown-enum writes an unknown or another declared value at an enum key', () => {
    const seen = new Set<unknown>();
    for (let seed = 0; seed < 60; seed++) {
      const result = mutateSequence(frames(), createRandom(seed), {
        weights: only('unknown-enum'),
        maxMutations: 1,
        enumFields: [{ key: 'status', values: ['completed', 'failed', 'interrupted'] }],
      });
      const turn = (result.frames[3] as { params: { turn: { status: unknown } } }).params.turn.status;
      seen.add(turn);
    }
    expect(seen).toContain(UNKNOWN_VALUE);
    expect(seen).toContain('failed');
    // Names an object literal inherits, which a lookup table answers unless it checks own keys.
    expect([...seen].some((value) => INHERITED_NAMES.includes(value as string))).toBe(true);
  });

  it('deep-nesting puts a value of the asked depth into the frame (no recursion needed to build it)', () => {
    const result = mutateSequence(frames(), createRandom(1), { weights: only('deep-nesting'), maxMutations: 1 });
    const mutation = result.mutations[0] as (typeof result.mutations)[number];
    const frame = result.frames[mutation.frame];
    expect(() => JSON.stringify(frame)).toThrow(RangeError);
    expect(depthOf(deeplyNested(50_000))).toBe(50_000);
  });

  it('sequence mutations move, copy, drop or cut frames and report their origin', () => {
    const input = frames();
    const dup = mutateSequence(input, createRandom(2), { weights: only('duplicate'), maxMutations: 1 });
    expect(dup.frames).toHaveLength(5);
    expect(dup.origins.filter((origin) => origin === dup.mutations[0]?.frame)).toHaveLength(2);
    const dropped = mutateSequence(input, createRandom(2), { weights: only('drop-frame'), maxMutations: 1 });
    expect(dropped.frames).toHaveLength(3);
    const reordered = mutateSequence(input, createRandom(2), { weights: only('reorder'), maxMutations: 1 });
    expect([...reordered.origins].sort()).toEqual([0, 1, 2, 3]);
    expect(reordered.origins).not.toEqual([0, 1, 2, 3]);
    const cut = mutateSequence(input, createRandom(2), { weights: only('cut-sequence'), maxMutations: 1 });
    expect(cut.frames.length).toBeLessThan(4);
    expect(cut.origins).toEqual(cut.origins.map((_, index) => index));
  });

  it('leaves frames that are not mutable alone, and in their order', () => {
    const input = frames();
    for (let seed = 0; seed < 50; seed++) {
      const result = mutateSequence(input, createRandom(seed), { isMutable: (_frame, index) => index !== 1 });
      const kept = result.frames.filter((_, position) => result.origins[position] === 1);
      expect(kept).toEqual([input[1]]);
    }
  });
});

describe('mutateFrame', () => {
  it.each(['wrong-type', 'truncate'] as FrameMutationKind[])('%s also applies to a frame that is a scalar', (kind) => {
    const result = mutateFrame('a line that is not json', kind, createRandom(4));
    expect(result?.frame).not.toBe('a line that is not json');
  });

  it('says when a kind has nowhere to go', () => {
    expect(mutateFrame({ a: 1 }, 'unknown-enum', createRandom(1), { enumFields: [] })).toBeUndefined();
    expect(mutateFrame({ a: 1 }, 'unknown-type', createRandom(1))).toBeUndefined();
  });
});
