// The retry bound alone, on fake timers: retries without progress end in provider_error; progress resets it.
import type { ErrorInfo, ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RetryBound } from './retry-bound.js';

const retry = (message: string) => ({ type: 'notice', kind: 'retry', message }) as unknown as ReinsEvent;
const delta = { type: 'item.delta', kind: 'text', text: 'hi' } as unknown as ReinsEvent;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('RetryBound', () => {
  it('ends in provider_error when the retries outlast the bound, naming the last retry', () => {
    const bound = new RetryBound(15_000, 'Codex');
    const given: ErrorInfo[] = [];
    bound.observe(retry('Reconnecting... 1/5'), (error) => given.push(error));
    vi.advanceTimersByTime(5_000);
    bound.observe(retry('Reconnecting... waiting for network'), (error) => given.push(error));
    vi.advanceTimersByTime(9_999);
    expect(given).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(given).toHaveLength(1);
    expect(given[0]).toMatchObject({
      code: 'provider_error',
      retryable: true,
      data: { kind: 'connection_failed', retries: 2 },
    });
    expect(given[0]?.message).toMatch(/^Codex could not reach its model provider: 2 retries .*waiting for network/);
  });

  it('progress of the turn between retries starts the bound again', () => {
    const bound = new RetryBound(15_000, 'Codex');
    const given: ErrorInfo[] = [];
    bound.observe(retry('Reconnecting... 1/5'), (error) => given.push(error));
    vi.advanceTimersByTime(10_000);
    bound.observe(delta, (error) => given.push(error));
    bound.observe(retry('Reconnecting... 1/5'), (error) => given.push(error));
    vi.advanceTimersByTime(10_000);
    expect(given).toEqual([]);
    bound.stop();
    vi.advanceTimersByTime(60_000);
    expect(given).toEqual([]);
  });
});
