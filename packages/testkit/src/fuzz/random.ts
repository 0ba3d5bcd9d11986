// The fuzzer's random numbers: a small seeded generator written here (sfc32, seeded through splitmix32),
// so a run is the same on every machine and Node version, and any single case can be rebuilt from the
// run seed and its index alone (`caseSeed`), without replaying the cases before it.

export interface Random {
  /** The seed this generator started from. */
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, maxExclusive); 0 when maxExclusive <= 0. */
  int(maxExclusive: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** One element, chosen with the given non-negative weights (all zero: the first). */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
}

/** splitmix32: spreads one 32-bit seed over a well-mixed sequence (used to seed sfc32). */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRandom(seed: number): Random {
  const mix = splitmix32(seed);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const nextUint = (): number => {
    // sfc32 (Chris Doty-Humphrey's small fast chaotic generator).
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) nextUint();
  const random: Random = {
    seed: seed >>> 0,
    next: () => nextUint() / 0x1_0000_0000,
    int: (maxExclusive) => (maxExclusive <= 0 ? 0 : Math.floor(random.next() * maxExclusive)),
    chance: (p) => random.next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('Random.pick needs at least one item.');
      return items[random.int(items.length)] as (typeof items)[number];
    },
    weighted: (items) => {
      if (items.length === 0) throw new Error('Random.weighted needs at least one item.');
      const total = items.reduce((sum, [, weight]) => sum + Math.max(0, weight), 0);
      if (total <= 0) return (items[0] as (typeof items)[number])[0];
      let roll = random.next() * total;
      for (const [item, weight] of items) {
        roll -= Math.max(0, weight);
        if (roll < 0) return item;
      }
      return (items[items.length - 1] as (typeof items)[number])[0];
    },
  };
  return random;
}

/** The seed of case `index` of a run: a function of both numbers only, so one case can be rebuilt alone. */
export function caseSeed(runSeed: number, index: number): number {
  const mix = splitmix32((runSeed >>> 0) ^ Math.imul(index + 1, 0x27d4eb2d));
  mix();
  return mix();
}
