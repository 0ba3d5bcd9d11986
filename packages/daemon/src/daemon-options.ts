// What startDaemon takes (DaemonOptions) and what it hands back (Daemon): the daemon's public
// surface, apart from its implementation in daemon.ts.
import type { HarnessId } from '@reins/core';
import type { AnyHarnessOptions } from '@reins/harnesses';
import type { Logger } from './logger.js';
import type { SessionSourceFactory } from './session-directory.js';
import type { HarnessFactory } from './session-host.js';
import type { DaemonStore } from './store/store.js';

export interface DaemonOptions {
  /** Port to listen on; 0 (default) picks a free one (daemon.json says which). */
  port?: number;
  /** IP address to bind (default 127.0.0.1); one off loopback needs `tokenFile`. */
  host?: string;
  /**
   * `HOST:PORT` to bind, e.g. `0.0.0.0:7777` (IPv6 in brackets); exclusive with `host` and `port`.
   * An address other machines can reach needs `tokenFile`, else invalid_input.
   */
  listen?: string;
  /**
   * A file (mode 0600 or stricter) holding the token clients must present, instead of a random one
   * per start: every gateway behind one Service accepts the same token (a mounted Secret).
   */
  tokenFile?: string;
  /**
   * Where clients reach this daemon from outside (a Service, an ingress): `http://NAME:PORT` or
   * `https://NAME`. Its host is accepted in Host, its origin as the console's own, and its
   * ws(s):// address in the console's Content-Security-Policy.
   */
  publicOrigins?: string[];
  /** Browser origins allowed to connect (default none); non-browser clients send no Origin. */
  allowOrigins?: string[];
  /** Folder of daemon.json and reins.db; default $REINS_HOME, else ~/.reins. Must not be group/world-writable. */
  home?: string;
  /** Harness ids offered; default every id with an adapter in this build. */
  harnesses?: HarnessId[];
  /** Harness options per id, under what session/create passes (also used when a session resumes). */
  harnessOptions?: Partial<Record<HarnessId, AnyHarnessOptions>>;
  /** The store (default: SQLite at <home>/reins.db); the cluster mode brings its own. */
  store?: DaemonStore;
  /**
   * Sessions held elsewhere and served here (the cluster gateway): no store and no harness
   * process in this daemon, and the store and harness options are not used.
   */
  sessionSource?: SessionSourceFactory;
  /** How harnesses are made (default: @reins/harnesses createHarness); tests inject fakes. */
  createHarness?: HarnessFactory;
  /** Events kept in memory per live session for replay; older ones are read from the store (default 1 000). */
  eventBufferSize?: number;
  /** Closed sessions kept (listed, replayable) before the oldest is deleted (default 100). */
  closedSessionsKept?: number;
  /** An idle session's process is stopped after this (ms, default 30 min; 0: never). */
  idleTtlMs?: number;
  /** Most sessions with a live process; the least recently used idle ones sleep first (default 32). */
  maxLiveSessions?: number;
  /**
   * Harness processes kept started and initialised ahead, per harness id (`Harness.warm`; the
   * harness options of that id apply). A harness without warm starts is refused with
   * unsupported_capability naming the ones that have them.
   */
  warm?: Partial<Record<HarnessId, number>>;
  /**
   * Warm Codex app-servers also open the thread of the next session ahead, with the settings (cwd,
   * model, posture, ...) of the last session this daemon started on Codex, so the next session in the
   * same project starts on an open thread (CodexHarnessOptions.warmThread 'last-session'; a session
   * that does not fit says why in an `info` notice). Default true; false: warm processes only. It is
   * `warmThread: 'last-session'` in the warm harness's options (adapters without threads ahead ignore
   * it); an explicit `harnessOptions.<id>.warmThread` wins.
   */
  warmThread?: boolean;
  /** Deadline of each discovery and health probe in harness/list (ms, default 15 000). */
  probeTimeoutMs?: number;
  /** How often a sign-in in progress re-probes the harness's status (ms, default 2 000). */
  authPollMs?: number;
  /** A sign-in not finished in this long is cancelled (ms, default 10 min). */
  authTimeoutMs?: number;
  /** A connection that has not initialized within this is closed (ms, default 10 000). */
  initializeTimeoutMs?: number;
  /**
   * Connections open at once that have not initialized yet (default 128); one more ends the one that
   * has waited longest (doors.ts).
   */
  maxPendingConnections?: number;
  /** An HTTP request or upgrade whose headers have not all arrived in this long is closed (ms, default 10 000). */
  headerTimeoutMs?: number;
  /** Largest frame before initialize (bytes, default 64 KiB). */
  maxPreAuthFrameBytes?: number;
  /** A connection with more unsent bytes than this (answers, events, notifications) is dropped (default 16 MiB). */
  maxBufferedBytes?: number;
  /** Largest frame after initialize (bytes, default 32 MiB: turns can carry inline images). */
  maxPayloadBytes?: number;
  /** Requests in progress per connection (default 1 024). */
  maxRequestsInFlight?: number;
  /** How often status/snapshot goes to every client (ms, default 15 000). */
  snapshotIntervalMs?: number;
  /** The built web console served at GET / (default: @reins/console's dist/app; false: none). */
  consoleDir?: string | false;
  logger?: Logger;
}

export interface Daemon {
  /** Where a client on this machine connects: ws://127.0.0.1:<port> (or the address bound). */
  readonly url: string;
  readonly port: number;
  /** The address bound, HOST:PORT. */
  readonly address: string;
  /** The secret of this start (or the token file's); also in daemon.json. */
  readonly token: string;
  /** Where daemon.json was written. */
  readonly infoPath: string;
  /** Where the store is. */
  readonly storeLocation: string;
  /** Sessions held right now (open, dormant and recently closed). */
  sessionIds(): string[];
  /** Stops every harness process (sessions go dormant), closes every socket, removes daemon.json. Idempotent. */
  close(): Promise<void>;
}
