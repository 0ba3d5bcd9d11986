// The fair-door rules on plain objects: who gives up a slot, and Node's header deadlines.
import { describe, expect, it } from 'vitest';
import { headerTimeouts, oldestToEnd } from './doors.js';

const waiting = (name: string, isAuthenticated = false) => ({ name, isAuthenticated });

describe('oldestToEnd', () => {
  it('is undefined while fewer than the limit wait, initialized connections not counted', () => {
    const connections = [waiting('a'), waiting('b', true), waiting('c')];
    expect(oldestToEnd(connections, 3, new Set())).toBeUndefined();
  });

  it('names the longest-waiting connection not yet initialized once the limit waits', () => {
    const connections = [waiting('in', true), waiting('a'), waiting('b'), waiting('c')];
    expect(oldestToEnd(connections, 3, new Set())?.name).toBe('a');
  });

  it('skips connections ended already (still closing): they hold no slot', () => {
    const [a, b, c] = [waiting('a'), waiting('b'), waiting('c')];
    expect(oldestToEnd([a, b, c], 3, new Set([a]))).toBeUndefined();
    expect(oldestToEnd([a, b, c], 2, new Set([a]))?.name).toBe('b');
  });
});

describe('headerTimeouts', () => {
  it('checks the deadline often enough to close a half-sent request near its timeout', () => {
    expect(headerTimeouts(10_000)).toEqual({ headersTimeout: 10_000, connectionsCheckingInterval: 1_000 });
    expect(headerTimeouts(1_000)).toEqual({ headersTimeout: 1_000, connectionsCheckingInterval: 250 });
  });
});
