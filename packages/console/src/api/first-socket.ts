// The page's first WebSocket to the daemon. The entry opens it before the connection's code is even
// fetched (@reins/client, zod, the protocol's and core's schemas: most of the page's start), so the
// daemon accepts it while that code loads and evaluates; the client then takes it over as if it had
// opened it itself. This module imports nothing at run time: it is part of the entry.
import type { WebSocketConstructor } from '@reins/client';

/** The daemon that served this page: the console always talks to the origin it came from. */
export function daemonUrlOf(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
}

/**
 * A WebSocket class for @reins/client whose first socket is `first` (already opened by the entry,
 * to the same daemon) and every later one new: a reconnect opens a fresh socket as before.
 */
export function handingOver(first: WebSocket | undefined): WebSocketConstructor {
  let waiting = first;
  // `new` on a plain function that returns an object gives that object: here the waiting socket.
  function handOver(url: string): WebSocket {
    const socket = waiting ?? new WebSocket(url);
    waiting = undefined;
    return socket;
  }
  return handOver as unknown as WebSocketConstructor;
}
