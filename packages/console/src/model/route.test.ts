import { describe, expect, it } from 'vitest';
import { linkFromHash, parseRoute, routeHash, tokenFromHash } from './route.js';

describe('route', () => {
  it('reads the token reins console puts in the fragment', () => {
    expect(tokenFromHash('#token=abc-_123')).toBe('abc-_123');
    expect(tokenFromHash('#/session/x&token=t2')).toBe('t2');
    expect(tokenFromHash('#/session/x')).toBeUndefined();
    expect(tokenFromHash('#token=')).toBeUndefined();
    expect(linkFromHash(`#token=t&cwd=${encodeURIComponent('/home/me/my repo')}`)).toEqual({
      token: 't',
      cwd: '/home/me/my repo',
    });
    expect(linkFromHash('#/doctor')).toEqual({});
  });

  it('round-trips every page', () => {
    for (const route of [
      { page: 'home' },
      { page: 'new' },
      { page: 'doctor' },
      { page: 'session', sessionId: 'a b/c' },
      { page: 'conversations' },
      { page: 'conversations', harness: 'codex' },
    ] as const) {
      expect(parseRoute(routeHash(route))).toEqual(route);
    }
    expect(parseRoute('#/nonsense')).toEqual({ page: 'home' });
    expect(parseRoute('')).toEqual({ page: 'home' });
  });
});
