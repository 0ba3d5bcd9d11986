import { describe, expect, it } from 'vitest';
import { locateAfter } from './locate.js';

describe('locating a seq in the stream', () => {
  // Stream: three sessions interleaved; ours is every third message, seq 1..100.
  const ours = Array.from({ length: 100 }, (_, index) => ({ streamSeq: 3 * index + 2, seq: index + 1 }));
  let probes = 0;
  const next = async (from: number) => {
    probes++;
    return ours.find((message) => message.streamSeq >= from);
  };

  it('finds the first message after any seq in about log2(stream) direct gets', async () => {
    for (const after of [0, 1, 37, 99]) {
      probes = 0;
      expect(await locateAfter(after, 1, 301, next)).toBe(3 * after + 2);
      expect(probes).toBeLessThanOrEqual(10);
    }
    expect(await locateAfter(100, 1, 301, next)).toBeUndefined();
  });
});
