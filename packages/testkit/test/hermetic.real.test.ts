// The namespace that `npm run test:real` (bin/hermetic.mjs) puts this tier in: loopback works, anything else
// is unreachable at once, and assertHermetic() agrees.
import { createServer, connect as tcpConnect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { beforeAll, expect, it } from 'vitest';
import {
  assertHermetic,
  NON_LOOPBACK_PROBE_ADDRESS,
  probeNonLoopbackConnect,
} from '../src/hermetic/assert-hermetic.js';

// Outside a namespace the connect probes below would send packets: prove the namespace first, so that a run
// without the launcher fails here and never reaches them.
beforeAll(async () => {
  await assertHermetic();
});

it('runs under the hermetic launcher', () => {
  expect(process.env.REINS_HERMETIC).toBe('1');
});

it('has only loopback interfaces', () => {
  const addresses = Object.values(networkInterfaces()).flat();
  expect(addresses.length).toBeGreaterThan(0);
  expect(addresses.every((address) => address?.internal)).toBe(true);
});

it('assertHermetic() passes', async () => {
  await expect(assertHermetic()).resolves.toMatchObject({
    nonLoopbackInterfaces: [],
    probe: { kind: 'unreachable', code: 'ENETUNREACH' },
  });
});

it.each([NON_LOOPBACK_PROBE_ADDRESS, '198.51.100.1', '10.255.255.1'])(
  'a TCP connect to %s fails at once with ENETUNREACH',
  async (host) => {
    const started = Date.now();
    await expect(probeNonLoopbackConnect(host, 2_000)).resolves.toEqual({ kind: 'unreachable', code: 'ENETUNREACH' });
    expect(Date.now() - started).toBeLessThan(500);
  },
);

it('loopback TCP works', async () => {
  const server = createServer((socket) => socket.end('pong'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no listener address');
  try {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = tcpConnect({ host: '127.0.0.1', port: address.port });
      let data = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        data += chunk;
      });
      socket.once('end', () => resolve(data));
      socket.once('error', reject);
      setTimeout(() => reject(new Error('loopback read timed out')), 2_000).unref();
    });
    expect(reply).toBe('pong');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
