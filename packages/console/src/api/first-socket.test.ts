import { afterEach, describe, expect, it, vi } from 'vitest';
import { daemonUrlOf, handingOver } from './first-socket.js';

/** Stands in for the browser's WebSocket: remembers its url. */
class OpenedSocket {
  constructor(readonly url: string) {}
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the first socket', () => {
  it('is the daemon that served the page, ws or wss as the page', () => {
    expect(daemonUrlOf({ protocol: 'http:', host: '127.0.0.1:4100' })).toBe('ws://127.0.0.1:4100');
    expect(daemonUrlOf({ protocol: 'https:', host: 'reins.example:443' })).toBe('wss://reins.example:443');
  });

  it('is handed to the client once; a reconnect opens a new socket', () => {
    vi.stubGlobal('WebSocket', OpenedSocket);
    const first = new OpenedSocket('ws://127.0.0.1:4100') as unknown as WebSocket;
    const Socket = handingOver(first);
    expect(new Socket('ws://127.0.0.1:4100')).toBe(first);
    const second = new Socket('ws://127.0.0.1:4100');
    expect(second).not.toBe(first);
    expect(second).toBeInstanceOf(OpenedSocket);
    expect((second as unknown as OpenedSocket).url).toBe('ws://127.0.0.1:4100');
  });

  it('opens a socket of its own when the entry had none to hand over', () => {
    vi.stubGlobal('WebSocket', OpenedSocket);
    const socket = new (handingOver(undefined))('ws://127.0.0.1:4100');
    expect(socket).toBeInstanceOf(OpenedSocket);
  });
});
