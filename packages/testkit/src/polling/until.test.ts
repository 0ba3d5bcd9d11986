// The shared poller: returns the probe's first truthy value, sync or async, and names what it waited for.
import { describe, expect, it } from 'vitest';
import { until } from './until.js';

describe('until', () => {
  it('returns the first truthy value of a sync probe, after falsy ones', async () => {
    let calls = 0;
    const values = [undefined, 0, '', false, { found: 3 }];
    const result = await until(() => values[calls++], 'the object');
    expect(result).toEqual({ found: 3 });
    expect(calls).toBe(5);
  });

  it('awaits an async probe', async () => {
    let calls = 0;
    expect(await until(async () => (++calls >= 3 ? 'ready' : undefined), 'ready')).toBe('ready');
    expect(calls).toBe(3);
  });

  it('rejects after the deadline with a message naming what it waited for', async () => {
    await expect(until(() => false, 'the daemon to listen', 30)).rejects.toThrow(
      'Timed out after 30 ms waiting for the daemon to listen.',
    );
  });

  it('computes a described failure only when it fails', async () => {
    let described = 0;
    const what = () => `events seen: ${++described}`;
    await until(() => true, what);
    expect(described).toBe(0);
    await expect(until(() => undefined, what, 20)).rejects.toThrow('waiting for events seen: 1.');
  });

  it('lets a probe that throws reject at once', async () => {
    await expect(
      until(() => {
        throw new Error('probe broke');
      }, 'anything'),
    ).rejects.toThrow('probe broke');
  });
});
