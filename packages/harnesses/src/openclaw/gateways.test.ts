// The launch settings that decide which sessions share a local gateway (gateways.ts).
import { describe, expect, it } from 'vitest';
import { type GatewayLaunch, gatewayLaunchKey, gatewayStateKey } from './gateways.js';

const base: GatewayLaunch = { binaryPath: '/bin/openclaw', cwd: '/work/a', env: { HOME: '/h', B: '2', A: '1' } };

describe('openclaw gateway launch keys', () => {
  it('the same settings give the same key, whatever the order of the environment', () => {
    expect(gatewayLaunchKey({ ...base, env: { A: '1', B: '2', HOME: '/h' } })).toBe(gatewayLaunchKey(base));
  });

  it('binary, environment, command prefix, extra arguments, cwd and port each make another gateway', () => {
    const key = gatewayLaunchKey(base);
    for (const other of [
      { ...base, binaryPath: '/other/openclaw' },
      { ...base, env: { ...base.env, A: 'changed' } },
      { ...base, commandPrefix: ['unshare', '--mount'] },
      { ...base, extraArgs: ['--verbose'] },
      { ...base, cwd: '/work/b' },
      { ...base, port: 18_789 },
    ]) {
      expect(gatewayLaunchKey(other)).not.toBe(key);
    }
  });

  it('cwd and port do not change the state key (both gateways list the same sessions)', () => {
    expect(gatewayStateKey({ ...base, cwd: '/work/b', port: 1 })).toBe(gatewayStateKey(base));
    expect(gatewayStateKey({ ...base, env: { ...base.env, OPENCLAW_STATE_DIR: '/s' } })).not.toBe(
      gatewayStateKey(base),
    );
  });

  it('never keeps the environment as text in a key', () => {
    const key = gatewayLaunchKey({ ...base, env: { SECRET_TOKEN: 'sk-visible-value' } });
    expect(key).toMatch(/^[0-9a-f]{32}$/);
  });
});
