// The warm pool's bookkeeping on plain items (no process): fill, take and replace, dispose with
// starts in flight, an idle item that dies, and failures that never loop. The process tier
// (warm-pool.process.test.ts) shows pooled children count as live processes and leave none behind.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WarmPool, type WarmPoolSpec, WarmPools } from './warm-pool.js';

interface Item {
  id: number;
  stopped: boolean;
  end: () => void;
  ended: Promise<void>;
}

/** A spec whose starts the test settles by hand. */
function manualSpec() {
  let next = 0;
  const pending: Array<{ resolve: (item: Item) => void; reject: (error: unknown) => void }> = [];
  const made: Item[] = [];
  const errors: unknown[] = [];
  const spec: WarmPoolSpec<Item> = {
    start: () =>
      new Promise<Item>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
    stop: async (item) => {
      item.stopped = true;
      item.end();
    },
    ended: (item) => item.ended,
    onStartError: (error) => errors.push(error),
  };
  const make = (): Item => {
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const item = { id: ++next, stopped: false, end, ended };
    made.push(item);
    return item;
  };
  return {
    spec,
    made,
    errors,
    get pendingCount() {
      return pending.length;
    },
    /** Settles the oldest start with a new item. */
    finish(): Item {
      const item = make();
      (pending.shift() as { resolve: (item: Item) => void }).resolve(item);
      return item;
    },
    fail(error: unknown): void {
      (pending.shift() as { reject: (error: unknown) => void }).reject(error);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WarmPool', () => {
  it('starts the requested number, resolves resize once they are ready, and hands them out in order', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(2);
    expect(starts.pendingCount).toBe(2);
    expect(pool.startingCount).toBe(2);
    const first = starts.finish();
    const second = starts.finish();
    await filled;
    expect(pool.readyCount).toBe(2);
    expect(pool.take()).toBe(first);
    // The replacement starts at once; the pool still holds the other ready one.
    expect(starts.pendingCount).toBe(1);
    expect(pool.take()).toBe(second);
    expect(pool.take()).toBeUndefined();
    expect(starts.pendingCount).toBe(2);
    // dispose waits for the starts in flight and stops what they bring.
    const disposed = pool.dispose();
    const late = [starts.finish(), starts.finish()];
    await disposed;
    expect(late.map((item) => item.stopped)).toEqual([true, true]);
    expect([first.stopped, second.stopped]).toEqual([false, false]);
  });

  it('a taken item is the holder’s: dispose stops only what the pool still holds', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(1);
    const taken = starts.finish();
    await filled;
    expect(pool.take()).toBe(taken);
    const replacement = starts.finish();
    await tick();
    expect(pool.readyCount).toBe(1);
    await pool.dispose();
    expect(replacement.stopped).toBe(true);
    expect(taken.stopped).toBe(false);
    expect(pool.take()).toBeUndefined();
  });

  it('dispose with a start in flight stops that item as soon as it is ready (no orphan)', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    void pool.resize(1);
    const disposed = pool.dispose();
    const late = starts.finish();
    await disposed;
    expect(late.stopped).toBe(true);
    expect(pool.readyCount).toBe(0);
    // A disposed pool starts nothing more.
    expect(pool.take()).toBeUndefined();
    await pool.resize(3);
    expect(starts.pendingCount).toBe(0);
  });

  it('resize waits for the starts already in flight (after a take, the pool is full again once it resolves)', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(1);
    starts.finish();
    await filled;
    pool.take();
    let settled = false;
    const again = pool.resize(1).then(() => {
      settled = true;
    });
    await tick();
    expect(settled).toBe(false);
    starts.finish();
    await again;
    expect(pool.readyCount).toBe(1);
    await pool.dispose();
  });

  it('shrinking stops the extra ready items', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(2);
    const a = starts.finish();
    const b = starts.finish();
    await filled;
    await pool.resize(1);
    expect([a.stopped, b.stopped]).toEqual([false, true]);
    expect(pool.readyCount).toBe(1);
    await pool.dispose();
    expect(a.stopped).toBe(true);
  });

  it('a failed start rejects resize, is reported, and is not retried until the next take', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(1);
    starts.fail(new Error('binary missing'));
    await expect(filled).rejects.toThrow('binary missing');
    expect(starts.errors).toHaveLength(1);
    await tick();
    expect(starts.pendingCount).toBe(0);
    expect(pool.take()).toBeUndefined();
    expect(starts.pendingCount).toBe(1);
    starts.finish();
    await tick();
    expect(pool.readyCount).toBe(1);
    await pool.dispose();
  });

  it('an item that dies while ready is dropped and replaced once, not forever', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    const filled = pool.resize(1);
    const first = starts.finish();
    await filled;
    first.end();
    await tick();
    expect(pool.readyCount).toBe(0);
    expect(starts.pendingCount).toBe(1);
    const second = starts.finish();
    await tick();
    expect(pool.readyCount).toBe(1);
    second.end();
    await tick();
    // Two deaths in a row without a take: the pool waits for the next take or resize.
    expect(pool.readyCount).toBe(0);
    expect(starts.pendingCount).toBe(0);
    expect(pool.take()).toBeUndefined();
    expect(starts.pendingCount).toBe(1);
    starts.finish();
    await pool.dispose();
  });

  it('takeSoon waits for a start in flight rather than miss, and is undefined when nothing starts', async () => {
    const starts = manualSpec();
    const pool = new WarmPool(starts.spec);
    expect(await pool.takeSoon()).toBeUndefined();
    // That miss refilled nothing (size 0). Now one is starting:
    void pool.resize(1);
    const soon = pool.takeSoon();
    const item = starts.finish();
    expect(await soon).toBe(item);
    // Its replacement started; a start that fails gives undefined, not a hang.
    expect(starts.pendingCount).toBe(1);
    const failing = pool.takeSoon();
    starts.fail(new Error('no binary'));
    expect(await failing).toBeUndefined();
    // The miss started one more (as take() does); dispose stops it once it is ready.
    const disposed = pool.dispose();
    const late = starts.finish();
    await disposed;
    expect(late.stopped).toBe(true);
  });

  describe('refillDelayMs', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('starts the replacement of a taken item only once the delay has passed', async () => {
      vi.useFakeTimers();
      const starts = manualSpec();
      const pool = new WarmPool({ ...starts.spec, refillDelayMs: 1000 });
      const filled = pool.resize(1);
      const first = starts.finish();
      await filled;
      expect(pool.take()).toBe(first);
      expect(starts.pendingCount).toBe(0);
      await vi.advanceTimersByTimeAsync(999);
      expect(starts.pendingCount).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(starts.pendingCount).toBe(1);
      starts.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(pool.readyCount).toBe(1);
      await pool.dispose();
    });

    it('a take that finds nothing ready starts one at once', async () => {
      vi.useFakeTimers();
      const starts = manualSpec();
      const pool = new WarmPool({ ...starts.spec, refillDelayMs: 1000 });
      const filled = pool.resize(1);
      starts.finish();
      await filled;
      pool.take();
      // Nothing ready now (the replacement waits): the next take is a miss and refills at once.
      expect(pool.take()).toBeUndefined();
      expect(starts.pendingCount).toBe(1);
      // The timer of the first take starts no second one: one item was missing, one is starting.
      await vi.advanceTimersByTimeAsync(2000);
      expect(starts.pendingCount).toBe(1);
      starts.finish();
      await pool.dispose();
    });

    it('resize during the delay fills at once, and dispose cancels a pending refill', async () => {
      vi.useFakeTimers();
      const starts = manualSpec();
      const pool = new WarmPool({ ...starts.spec, refillDelayMs: 1000 });
      const filled = pool.resize(2);
      starts.finish();
      starts.finish();
      await filled;
      pool.take();
      const again = pool.resize(2);
      expect(starts.pendingCount).toBe(1);
      starts.finish();
      await again;
      await vi.advanceTimersByTimeAsync(2000);
      expect(starts.pendingCount).toBe(0);
      expect(pool.readyCount).toBe(2);
      pool.take();
      await pool.dispose();
      await vi.advanceTimersByTimeAsync(2000);
      expect(starts.pendingCount).toBe(0);
    });
  });

  it('refuses a size that is not a whole number', async () => {
    const pool = new WarmPool(manualSpec().spec);
    await expect(pool.resize(-1)).rejects.toThrow(RangeError);
    await expect(pool.resize(1.5)).rejects.toThrow(RangeError);
  });
});

describe('WarmPools (one pool per launch key)', () => {
  /** A spec whose items are ready at once. */
  function readySpec(label: string, made: string[]): WarmPoolSpec<string> {
    let next = 0;
    return {
      start: async () => {
        const item = `${label}-${++next}`;
        made.push(item);
        return item;
      },
      stop: async () => {},
      ended: () => new Promise(() => {}),
    };
  }

  it('keeps the pools apart, builds a key’s spec once, and forgets a key warmed to 0', async () => {
    const pools = new WarmPools<string>();
    const made: string[] = [];
    let specs = 0;
    const specFor = (label: string) => () => {
      specs++;
      return readySpec(label, made);
    };
    await pools.warm('a', specFor('a'), 1);
    await pools.warm('b', specFor('b'), 2);
    await pools.warm('a', specFor('a'), 2);
    expect(specs).toBe(2);
    expect([pools.readyCount('a'), pools.readyCount('b')]).toEqual([2, 2]);
    expect(pools.take('a')).toBe('a-1');
    expect(pools.take('c')).toBeUndefined();
    await pools.warm('b', specFor('b'), 0);
    expect([pools.has('a'), pools.has('b'), pools.size]).toEqual([true, false, 1]);
    expect(pools.take('b')).toBeUndefined();
  });
});
