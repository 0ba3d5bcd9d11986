import type { NativeFrame } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { NativeFrameLoader } from './native-frames.js';

const frameOf = (seq: number): NativeFrame => ({ source: 'codex.app-server', method: 'm', frame: { seq } });

/** A daemon of `last` events, every third without a native frame; records each page asked. */
function daemon(last: () => number) {
  const asked: Array<[number, number]> = [];
  const fetch = async (afterSeq: number, limit: number) => {
    asked.push([afterSeq, limit]);
    if (afterSeq > last()) throw new Error(`afterSeq ${afterSeq} is past the newest event`);
    const frames: Array<{ seq: number; native: NativeFrame }> = [];
    for (let seq = afterSeq + 1; seq <= Math.min(last(), afterSeq + limit); seq++)
      if (seq % 3 !== 0) frames.push({ seq, native: frameOf(seq) });
    return frames;
  };
  return { asked, fetch };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('NativeFrameLoader', () => {
  it('fetches the newest page first, then older pages to the first event, then new events', async () => {
    let last = 25;
    const { asked, fetch } = daemon(() => last);
    let changes = 0;
    const loader = new NativeFrameLoader(fetch, () => changes++, 10);
    loader.want(25);
    await settle();
    expect(asked).toEqual([
      [15, 10],
      [5, 10],
      [0, 5],
    ]);
    expect([...loader.frames.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, index) => index + 1).filter((seq) => seq % 3 !== 0),
    );
    expect(loader.frames.get(25)).toEqual(frameOf(25));
    expect([loader.fetched(0), loader.fetched(1), loader.fetched(25), loader.fetched(26)]).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(changes).toBe(3);

    last = 31;
    loader.want(31);
    loader.want(30); // an older view of the session asks nothing
    await settle();
    expect(asked.slice(3)).toEqual([[25, 6]]);
    expect(loader.frames.has(31)).toBe(true);
  });

  it('stops at a failed page and says why; stopped, it asks nothing more', async () => {
    const failing = async () => {
      throw new Error('Method not found: session/nativeFrames');
    };
    const loader = new NativeFrameLoader(failing, () => {}, 10);
    loader.want(5);
    await settle();
    expect(loader.failure).toBe('Method not found: session/nativeFrames');

    const { asked, fetch } = daemon(() => 40);
    const stopped = new NativeFrameLoader(fetch, () => {}, 10);
    stopped.want(40);
    stopped.stop();
    await settle();
    expect(asked).toEqual([[30, 10]]);
    expect(stopped.frames.size).toBe(0);
  });
});
