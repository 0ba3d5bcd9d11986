// Health from discovery plus an adapter's auth probe, with the probe's failure modes.
import { type DiscoveredBinary, ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { authReady, authRequired, harnessHealth, healthFromDiscovery } from './discovery-health.js';

const binary: DiscoveredBinary = {
  path: '/usr/bin/claude',
  sha256: 'a'.repeat(64),
  version: '2.1.197',
  source: 'path',
};
const found = { found: true as const, binary };

describe('harnessHealth', () => {
  it('not installed: the discovery hint is the fix, and the auth probe never runs', async () => {
    let ran = false;
    const health = await harnessHealth(
      { found: false, searched: ['PATH: /bin'], hint: 'Install claude, or set REINS_CLAUDE_CODE_BIN.' },
      {
        auth: async () => {
          ran = true;
          return authReady();
        },
      },
    );
    expect(health).toEqual({
      status: 'not_installed',
      message: 'Install claude, or set REINS_CLAUDE_CODE_BIN.',
      fix: 'Install claude, or set REINS_CLAUDE_CODE_BIN.',
    });
    expect(ran).toBe(false);
  });

  it('ready with the auth methods the probe saw', async () => {
    const health = await harnessHealth(found, { auth: async () => authReady({ authMethods: ['api_key'] }) });
    expect(health).toEqual({ status: 'ready', binary, authMethods: ['api_key'] });
  });

  it('auth_required carries what to run', async () => {
    const health = await harnessHealth(found, { auth: async () => authRequired('Not logged in.', 'claude /login') });
    expect(health).toEqual({ status: 'auth_required', binary, message: 'Not logged in.', fix: 'claude /login' });
  });

  it('an auth probe that throws auth_required becomes auth_required; other errors make it unhealthy', async () => {
    const required = await harnessHealth(found, {
      auth: async () => {
        throw new ReinsError('auth_required', 'Authentication required', { data: { fix: 'gemini (then /auth)' } });
      },
    });
    expect(required).toMatchObject({
      status: 'auth_required',
      message: 'Authentication required',
      fix: 'gemini (then /auth)',
    });
    const broken = await harnessHealth(found, {
      auth: async () => {
        throw new Error('auth status printed no JSON');
      },
    });
    expect(broken).toMatchObject({ status: 'unhealthy', message: expect.stringContaining('printed no JSON') });
  });

  it('an auth probe that hangs is cut off by its deadline', async () => {
    const health = await harnessHealth(found, { auth: () => new Promise(() => {}), authTimeoutMs: 50 });
    expect(health).toMatchObject({ status: 'unhealthy', message: expect.stringContaining('within 50 ms') });
  });

  it('without an auth probe a working binary is ready', () => {
    expect(healthFromDiscovery(found)).toEqual({ status: 'ready', binary });
  });
});
