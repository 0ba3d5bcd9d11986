import { describe, expect, it } from 'vitest';
import { stableUuid, uuidv7 } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond prefix of a UUIDv7. */
function msOf(id: string): number {
  return Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

describe('uuidv7', () => {
  it('carries the time in its first 48 bits, version 7 and the RFC 9562 variant', () => {
    for (const ms of [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, 1_800_000_000_123, 2 ** 48 - 1]) {
      const id = uuidv7(ms);
      expect(id).toMatch(UUID_V7);
      expect(msOf(id)).toBe(ms);
    }
  });

  it('sorts later for a later time', () => {
    expect(uuidv7(1_800_000_000_001) > uuidv7(1_800_000_000_000)).toBe(true);
  });

  it('keeps the low 48 bits of a time past 2^48 ms and floors a fraction', () => {
    expect(msOf(uuidv7(2 ** 48 + 5))).toBe(5);
    expect(msOf(uuidv7(1234.9))).toBe(1234);
  });

  it('takes a time that is negative, NaN or infinite as 0 instead of throwing', () => {
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const id = uuidv7(ms);
      expect(id).toMatch(UUID_V7);
      expect(msOf(id)).toBe(0);
    }
  });

  it('gives distinct ids for the same millisecond, across refills of its random pool', () => {
    // 4 KiB of random bytes serve 256 ids; 2,000 ids refill the pool several times.
    const ids = new Set(Array.from({ length: 2_000 }, () => uuidv7(1_800_000_000_000)));
    expect(ids.size).toBe(2_000);
  });
});

describe('stableUuid', () => {
  it('is the same for the same parts and differs for others', () => {
    expect(stableUuid('thread', '1')).toBe(stableUuid('thread', '1'));
    expect(stableUuid('thread', '1')).not.toBe(stableUuid('thread', '2'));
    expect(stableUuid('ab', 'c')).not.toBe(stableUuid('a', 'bc'));
    expect(stableUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
