// Who may open a socket: listed browser origins only, non-browser clients without Origin, and only
// when Host is one of the daemon's names (DNS rebinding): loopback, the address it binds, and each
// --public-origin (a Service or an ingress in front of it).
import { ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { checkUpgrade, daemonNames, normalizeOrigins, normalizePublicOrigins } from './upgrade-guard.js';

const port = 4321;
const host = `127.0.0.1:${port}`;
const names = daemonNames(port);

describe('checkUpgrade', () => {
  it('lets a non-browser client (no Origin) in', () => {
    expect(checkUpgrade({ origin: undefined, host }, { origins: [], names })).toEqual({ allowed: true });
    expect(checkUpgrade({ origin: undefined, host: `localhost:${port}` }, { origins: [], names }).allowed).toBe(true);
  });

  it('refuses every browser origin by default, and names the flag that allows it', () => {
    const verdict = checkUpgrade({ origin: 'http://localhost:5173', host }, { origins: [], names });
    expect(verdict).toMatchObject({ allowed: false, status: 403 });
    if (!verdict.allowed) expect(verdict.reason).toMatch(/--allow-origin http:\/\/localhost:5173/);
  });

  it("lets the daemon's own origin in (the console it serves), on its own port only", () => {
    expect(checkUpgrade({ origin: `http://127.0.0.1:${port}`, host }, { origins: [], names }).allowed).toBe(true);
    expect(checkUpgrade({ origin: `http://localhost:${port}`, host }, { origins: [], names }).allowed).toBe(true);
    expect(checkUpgrade({ origin: 'http://127.0.0.1:1', host }, { origins: [], names }).allowed).toBe(false);
    expect(checkUpgrade({ origin: `https://127.0.0.1:${port}`, host }, { origins: [], names }).allowed).toBe(false);
  });

  it('lets listed origins in, exactly', () => {
    const origins = ['http://localhost:5173'];
    expect(checkUpgrade({ origin: 'http://localhost:5173', host }, { origins, names }).allowed).toBe(true);
    expect(checkUpgrade({ origin: 'http://localhost:5174', host }, { origins, names }).allowed).toBe(false);
    expect(checkUpgrade({ origin: 'https://localhost:5173', host }, { origins, names }).allowed).toBe(false);
    expect(checkUpgrade({ origin: 'null', host }, { origins, names }).allowed).toBe(false);
  });

  it('refuses a Host that is not our loopback address (DNS rebinding), even with an allowed origin', () => {
    const origins = ['http://evil.example'];
    expect(
      checkUpgrade({ origin: 'http://evil.example', host: `evil.example:${port}` }, { origins, names }).allowed,
    ).toBe(false);
    expect(checkUpgrade({ origin: undefined, host: '127.0.0.1:1' }, { origins, names }).allowed).toBe(false);
    expect(checkUpgrade({ origin: undefined, host: undefined }, { origins, names }).allowed).toBe(false);
  });
});

describe('checkUpgrade behind a Service or an ingress (--public-origin)', () => {
  const behind = daemonNames(port, {
    addresses: ['10.1.2.3', 'fd00::5'],
    publicOrigins: normalizePublicOrigins(['http://reins-gateway.agents.svc:8080', 'https://reins.example.com']),
  });

  it('takes the public names as Host, with or without the default port, and keeps the loopback ones', () => {
    for (const name of [
      'reins-gateway.agents.svc:8080',
      'reins.example.com',
      'reins.example.com:443',
      'REINS.example.com',
      host,
      `localhost:${port}`,
      `10.1.2.3:${port}`,
      `[fd00::5]:${port}`,
    ]) {
      expect(checkUpgrade({ origin: undefined, host: name }, { origins: [], names: behind }).allowed, name).toBe(true);
    }
    for (const name of [
      'reins-gateway.agents.svc',
      'reins-gateway.agents.svc:80',
      'reins.example.com:8443',
      '10.1.2.3:1',
    ]) {
      expect(checkUpgrade({ origin: undefined, host: name }, { origins: [], names: behind }).allowed, name).toBe(false);
    }
  });

  it("takes the console's page on a public origin as the daemon's own origin, nothing else", () => {
    const at = (origin: string, hostHeader: string) =>
      checkUpgrade({ origin, host: hostHeader }, { origins: [], names: behind }).allowed;
    expect(at('https://reins.example.com', 'reins.example.com')).toBe(true);
    expect(at('http://reins-gateway.agents.svc:8080', 'reins-gateway.agents.svc:8080')).toBe(true);
    expect(at(`http://10.1.2.3:${port}`, `10.1.2.3:${port}`)).toBe(true);
    expect(at('http://reins.example.com', 'reins.example.com')).toBe(false);
    expect(at('https://evil.example', 'reins.example.com')).toBe(false);
  });

  it('names the flag that adds a name when a Host is refused', () => {
    const verdict = checkUpgrade({ origin: undefined, host: 'reins-gateway:7777' }, { origins: [], names });
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain('--public-origin http://reins-gateway:7777');
  });

  it("gives the console's policy a ws:// or wss:// address per name", () => {
    expect(behind.sockets).toEqual([
      `ws://127.0.0.1:${port}`,
      `ws://localhost:${port}`,
      `ws://10.1.2.3:${port}`,
      `ws://[fd00::5]:${port}`,
      'ws://reins-gateway.agents.svc:8080',
      'wss://reins.example.com',
    ]);
    expect(names.sockets).toEqual([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]);
  });

  it('refuses a public origin that is not http(s) or has a path', () => {
    for (const value of ['ws://reins.example.com', 'https://reins.example.com/console', 'reins.example.com']) {
      expect(() => normalizePublicOrigins([value]), value).toThrow(/--public-origin/);
    }
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
