// Fair doors (docs/architecture/daemon.md, "Fair doors"): no process without the token can keep a client
// that has it out. Connections waiting to initialize share a pool; when it is full, a newcomer takes the
// slot of the connection that has waited longest (a client with the token initializes in one round trip,
// so it is never the oldest for long; sockets held open on purpose are). On loopback every peer has the
// same address, so slots per address would not tell a client from a flood; age does. An HTTP request
// (or upgrade) whose headers have not all arrived within the header timeout is closed by Node's server.

/** Connections open at once that have not initialized yet (daemon option `maxPendingConnections`). */
export const DEFAULT_MAX_PENDING_CONNECTIONS = 128;
/** How long a client may take to send a request's (or upgrade's) headers (option `headerTimeoutMs`). */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;

/** The http.createServer options that close half-sent requests after `headerTimeoutMs`. */
export function headerTimeouts(headerTimeoutMs = DEFAULT_HEADER_TIMEOUT_MS) {
  return {
    headersTimeout: headerTimeoutMs,
    // Node checks the deadlines on this interval (default 30 s: a 10 s timeout would hold up to 40 s).
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headerTimeoutMs / 4))),
  };
}

export interface WaitingConnection {
  readonly isAuthenticated: boolean;
}

/**
 * The connection to end so that one more may wait: the longest-waiting one not yet initialized, when
 * `limit` of them wait already (`connections` in the order they opened; `ended`: ended already, still
 * closing). Undefined while there is room.
 */
export function oldestToEnd<C extends WaitingConnection>(
  connections: Iterable<C>,
  limit: number,
  ended: ReadonlySet<C>,
): C | undefined {
  let waiting = 0;
  let oldest: C | undefined;
  for (const connection of connections) {
    if (connection.isAuthenticated || ended.has(connection)) continue;
    waiting++;
    oldest ??= connection;
  }
  return waiting >= limit ? oldest : undefined;
}
