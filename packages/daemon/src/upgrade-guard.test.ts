// Who may open a socket: listed browser origins only, non-browser clients without Origin, and only
// when Host names our loopback address (DNS rebinding).
import { ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { checkUpgrade, normalizeOrigins } from './upgrade-guard.js';

const port = 4321;
const host = `127.0.0.1:${port}`;

describe('checkUpgrade', () => {
  it('lets a non-browser client (no Origin) in', () => {
    expect(checkUpgrade({ origin: undefined, host }, { origins: [], port })).toEqual({ allowed: true });
    expect(checkUpgrade({ origin: undefined, host: `localhost:${port}` }, { origins: [], port }).allowed).toBe(true);
  });

  it('refuses every browser origin by default, and names the flag that allows it', () => {
    const verdict = checkUpgrade({ origin: 'http://localhost:5173', host }, { origins: [], port });
    expect(verdict).toMatchObject({ allowed: false, status: 403 });
    if (!verdict.allowed) expect(verdict.reason).toMatch(/--allow-origin http:\/\/localhost:5173/);
  });

  it("lets the daemon's own origin in (the console it serves), on its own port only", () => {
    expect(checkUpgrade({ origin: `http://127.0.0.1:${port}`, host }, { origins: [], port }).allowed).toBe(true);
    expect(checkUpgrade({ origin: `http://localhost:${port}`, host }, { origins: [], port }).allowed).toBe(true);
    expect(checkUpgrade({ origin: 'http://127.0.0.1:1', host }, { origins: [], port }).allowed).toBe(false);
    expect(checkUpgrade({ origin: `https://127.0.0.1:${port}`, host }, { origins: [], port }).allowed).toBe(false);
  });

  it('lets listed origins in, exactly', () => {
    const origins = ['http://localhost:5173'];
    expect(checkUpgrade({ origin: 'http://localhost:5173', host }, { origins, port }).allowed).toBe(true);
    expect(checkUpgrade({ origin: 'http://localhost:5174', host }, { origins, port }).allowed).toBe(false);
    expect(checkUpgrade({ origin: 'https://localhost:5173', host }, { origins, port }).allowed).toBe(false);
    expect(checkUpgrade({ origin: 'null', host }, { origins, port }).allowed).toBe(false);
  });

  it('refuses a Host that is not our loopback address (DNS rebinding), even with an allowed origin', () => {
    const origins = ['http://evil.example'];
    expect(
      checkUpgrade({ origin: 'http://evil.example', host: `evil.example:${port}` }, { origins, port }).allowed,
    ).toBe(false);
    expect(checkUpgrade({ origin: undefined, host: '127.0.0.1:1' }, { origins, port }).allowed).toBe(false);
    expect(checkUpgrade({ origin: undefined, host: undefined }, { origins, port }).allowed).toBe(false);
  });
});

describe('normalizeOrigins', () => {
  it('keeps origins in origin form', () => {
    expect(normalizeOrigins(['http://localhost:5173/', 'https://Example.com'])).toEqual([
      'http://localhost:5173',
      'https://example.com',
    ]);
  });

  it('refuses what is not an origin with invalid_input', () => {
    for (const value of ['localhost:5173x', 'not a url', 'http://a.example/path', 'file:///tmp/x']) {
      let error: unknown;
      try {
        normalizeOrigins([value]);
      } catch (caught) {
        error = caught;
      }
      expect(ReinsError.isInstance(error) && error.code, value).toBe('invalid_input');
    }
  });
});
