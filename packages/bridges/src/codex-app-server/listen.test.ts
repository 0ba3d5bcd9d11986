// Where the bridge listens and who may connect, from Codex 0.171.0's own flags, with its refusals.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ListenFlags, listenPlanOf, sha256 } from './listen.js';
import { upgradeRefusal } from './socket.js';

const env = { HOME: '/home/u' };
const plan = (flags: Omit<ListenFlags, 'env'>, environment: NodeJS.ProcessEnv = env) =>
  listenPlanOf({ ...flags, env: environment });
const refusal = (flags: Omit<ListenFlags, 'env'>) => {
  try {
    plan(flags);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('listenPlanOf', () => {
  it('reads every --listen form Codex takes', () => {
    expect(plan({})).toEqual({ kind: 'stdio' });
    expect(plan({ listen: 'stdio://' })).toEqual({ kind: 'stdio' });
    expect(plan({ listen: 'off' })).toEqual({ kind: 'off' });
    expect(plan({ listen: 'unix:///run/x.sock' })).toEqual({ kind: 'unix', path: '/run/x.sock' });
    // Codex's default control socket, under CODEX_HOME (else ~/.codex).
    expect(plan({ listen: 'unix://' })).toEqual({
      kind: 'unix',
      path: '/home/u/.codex/app-server-control/app-server-control.sock',
    });
    expect(plan({ listen: 'unix://' }, { CODEX_HOME: '/c' })).toEqual({
      kind: 'unix',
      path: '/c/app-server-control/app-server-control.sock',
    });
    expect(plan({ listen: 'ws://127.0.0.1:4500' })).toEqual({
      kind: 'ws',
      host: '127.0.0.1',
      port: 4500,
      loopback: true,
    });
    expect(plan({ listen: 'ws://[::1]:0' })).toEqual({ kind: 'ws', host: '::1', port: 0, loopback: true });
  });

  it("refuses what Codex refuses, in Codex's words", () => {
    expect(refusal({ listen: 'http://x' })).toMatch(/unsupported --listen URL `http:\/\/x`/);
    expect(refusal({ listen: 'ws://localhost:1' })).toMatch(/expected `ws:\/\/IP:PORT`/);
    expect(refusal({ listen: 'ws://0.0.0.0:7000' })).toMatch(
      /refusing to start non-loopback websocket listener 0\.0\.0\.0:7000 without auth/,
    );
    expect(refusal({ listen: 'ws://127.0.0.1:1', wsAuth: 'capability-token' })).toMatch(
      /`--ws-token-file` or `--ws-token-sha256` is required/,
    );
    expect(refusal({ listen: 'ws://127.0.0.1:1', wsAuth: 'signed-bearer-token' })).toMatch(
      /signed-bearer-token is not served/,
    );
    expect(refusal({ listen: 'ws://127.0.0.1:1', signedBearerFlag: '--ws-issuer' })).toMatch(/signed-bearer-token/);
    expect(refusal({ wsAuth: 'capability-token', wsTokenSha256: 'abc' })).toMatch(/64 hex digits/);
    expect(refusal({ wsAuth: 'capability-token', wsTokenFile: 'relative' })).toMatch(/absolute path/);
  });

  it('takes the token from a file (without its newline) or as a SHA-256 digest, and checks it at the upgrade', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reins-listen-'));
    const file = join(dir, 'token');
    writeFileSync(file, 's3cret\n');
    const fromFile = plan({ listen: 'ws://0.0.0.0:7000', wsAuth: 'capability-token', wsTokenFile: file });
    const digest = sha256('s3cret').toString('hex');
    const fromDigest = plan({ listen: 'ws://0.0.0.0:7000', wsAuth: 'capability-token', wsTokenSha256: digest });
    for (const chosen of [fromFile, fromDigest]) {
      const token = chosen.kind === 'ws' ? chosen.tokenSha256 : undefined;
      expect(token?.toString('hex')).toBe(digest);
      expect(upgradeRefusal({ authorization: 'Bearer s3cret' }, token)).toBeUndefined();
      expect(upgradeRefusal({ authorization: 'Bearer other' }, token)?.body).toBe('invalid websocket bearer token');
      expect(upgradeRefusal({}, token)?.body).toBe('missing websocket bearer token');
      expect(upgradeRefusal({ authorization: 'Bearer s3cret', origin: 'https://a.example' }, token)?.status).toBe(
        '403 Forbidden',
      );
    }
    expect(upgradeRefusal({}, undefined)).toBeUndefined();
  });
});
