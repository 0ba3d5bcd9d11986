// Where the daemon listens: HOST:PORT parsing, what counts as loopback, and the refusal of an
// address other machines reach without a shared token file (no socket is opened here).
import { ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, localUrl, parseListen, planListen, reachableAddresses } from './listen.js';

function failure(run: () => unknown): ReinsError {
  try {
    run();
  } catch (error) {
    if (ReinsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ReinsError');
}

describe('parseListen', () => {
  it('reads IPv4 and bracketed IPv6 HOST:PORT', () => {
    expect(parseListen('0.0.0.0:7777')).toEqual({ host: '0.0.0.0', port: 7777 });
    expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListen('[::]:7777')).toEqual({ host: '::', port: 7777 });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
  });

  it.each([
    ['7777', /--listen takes HOST:PORT/],
    ['0.0.0.0', /--listen takes HOST:PORT/],
    ['::1:7777', /--listen takes HOST:PORT/],
    ['0.0.0.0:', /--listen takes HOST:PORT/],
    ['0.0.0.0:70000', /whole number from 0 to 65535/],
    ['localhost:7777', /an IP address, not a name: "localhost"/],
    ['reins.example.com:7777', /an IP address, not a name/],
  ])('refuses %s with invalid_input', (value, message) => {
    const error = failure(() => parseListen(value));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(message);
  });
});

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and mapped loopback from the rest', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(address)).toBe(true);
    for (const address of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.1', 'fe80::1', '128.0.0.1'])
      expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe('planListen', () => {
  it('listens on 127.0.0.1 on a free port by default, with no token file needed', () => {
    expect(planListen({})).toEqual({ host: '127.0.0.1', port: 0, loopback: true, wildcard: false });
    expect(planListen({ listen: '127.0.0.1:7000' })).toMatchObject({ host: '127.0.0.1', port: 7000, loopback: true });
    expect(planListen({ listen: '[::1]:7000' })).toMatchObject({ host: '::1', loopback: true });
  });

  it('refuses an address other machines reach without a token file, saying what to add', () => {
    for (const options of [{ listen: '0.0.0.0:7777' }, { listen: '[::]:7777' }, { host: '10.0.0.5', port: 7777 }]) {
      const error = failure(() => planListen(options));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(/needs a shared secret token: add --token-file PATH/);
      expect(error.message).toMatch(/or listen on 127\.0\.0\.1/);
    }
  });

  it('takes a non-loopback address with a token file', () => {
    expect(planListen({ listen: '0.0.0.0:7777', tokenFile: '/run/secrets/reins/token' })).toEqual({
      host: '0.0.0.0',
      port: 7777,
      loopback: false,
      wildcard: true,
    });
  });

  it('refuses --listen together with --port', () => {
    expect(failure(() => planListen({ listen: '127.0.0.1:1', port: 2 })).message).toMatch(/drop --port/);
  });

  it('refuses a host name as the address to bind', () => {
    expect(failure(() => planListen({ host: 'localhost' })).message).toMatch(/not a name/);
  });
});

describe('localUrl and reachableAddresses', () => {
  it('points local clients at 127.0.0.1 when the daemon binds every interface', () => {
    expect(localUrl({ host: '0.0.0.0', wildcard: true }, 7777)).toBe('ws://127.0.0.1:7777');
    expect(localUrl({ host: '::', wildcard: true }, 7777)).toBe('ws://127.0.0.1:7777');
    expect(localUrl({ host: '::1', wildcard: false }, 7777)).toBe('ws://[::1]:7777');
    expect(localUrl({ host: '10.0.0.5', wildcard: false }, 7777)).toBe('ws://10.0.0.5:7777');
  });

  it('names the bound address, or every interface address on a wildcard', () => {
    expect(reachableAddresses({ host: '127.0.0.1', wildcard: false, loopback: true })).toEqual([]);
    expect(reachableAddresses({ host: '10.0.0.5', wildcard: false, loopback: false })).toEqual(['10.0.0.5']);
    const all = reachableAddresses({ host: '0.0.0.0', wildcard: true, loopback: false });
    expect(all).toContain('127.0.0.1');
    expect(all.every((address) => !address.includes(':'))).toBe(true);
  });
});
