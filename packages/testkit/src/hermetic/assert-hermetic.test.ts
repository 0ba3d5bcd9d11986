// assertHermetic(): the decision logic with injected evidence, plus one check against the real machine that
// is meaningful wherever the unit tier runs (open network: must throw; inside hermetic.mjs: must pass).
import { networkInterfaces } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { assertHermetic, isHermetic, NotHermeticError } from './assert-hermetic.js';

type Interfaces = ReturnType<typeof networkInterfaces>;

const loopbackOnly: Interfaces = {
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
};
const withEth0: Interfaces = {
  ...loopbackOnly,
  eth0: [
    {
      address: '10.1.2.3',
      netmask: '255.255.0.0',
      family: 'IPv4',
      mac: '02:42:0a:01:02:03',
      internal: false,
      cidr: '10.1.2.3/16',
    },
  ],
};

describe('assertHermetic (injected evidence)', () => {
  it('passes when only loopback exists and the probe is unreachable', async () => {
    const evidence = await assertHermetic({
      listInterfaces: () => loopbackOnly,
      probe: async () => ({ kind: 'unreachable', code: 'ENETUNREACH' }),
    });
    expect(evidence.probe).toEqual({ kind: 'unreachable', code: 'ENETUNREACH' });
  });

  it('rejects a non-loopback interface without ever probing the network', async () => {
    const probe = vi.fn(async () => ({ kind: 'unreachable' as const, code: 'ENETUNREACH' }));
    const failure = assertHermetic({ listInterfaces: () => withEth0, probe });
    await expect(failure).rejects.toThrow(NotHermeticError);
    await expect(failure).rejects.toThrow(/non-loopback interfaces present \(eth0\).*hermetic\.mjs/s);
    expect(probe).not.toHaveBeenCalled();
  });

  it.each([
    [{ kind: 'reachable' as const }, /succeeded/],
    [{ kind: 'timeout' as const }, /hung instead of failing/],
    [{ kind: 'unreachable' as const, code: 'ECONNREFUSED' }, /ECONNREFUSED, not ENETUNREACH/],
  ])('rejects a probe outcome of %o', async (outcome, message) => {
    await expect(assertHermetic({ listInterfaces: () => loopbackOnly, probe: async () => outcome })).rejects.toThrow(
      message,
    );
  });
});

describe('assertHermetic (this machine)', () => {
  const openInterfaces = Object.entries(networkInterfaces())
    .filter(([, addresses]) => addresses?.some((address) => !address.internal))
    .map(([name]) => name);

  it.runIf(openInterfaces.length > 0)('throws a clear error on the open network (no probe is sent)', async () => {
    expect(await isHermetic()).toBe(false);
    await expect(assertHermetic()).rejects.toThrow(
      /Not inside a loopback-only network namespace: non-loopback interfaces/,
    );
  });

  it.runIf(openInterfaces.length === 0 && process.env.REINS_HERMETIC === '1')(
    'passes inside the hermetic launcher',
    async () => {
      expect(await isHermetic()).toBe(true);
      await expect(assertHermetic()).resolves.toMatchObject({ probe: { kind: 'unreachable', code: 'ENETUNREACH' } });
    },
  );
});
