// The console's link to the daemon, kept up: when the WebSocket drops it connects again (backing
// off), and every session it follows is attached again with afterSeq = the last seq its model has,
// so the transcript goes on with no gap and no duplicate (docs/architecture/daemon.md, "Protocol").
// A wrong token (the daemon restarted, so its token changed) stops the retries: only a new link
// from `reins console` helps then. The link itself is injected, so this runs against a fake.
import type { SessionListing, SessionsChangedParams, StatusSnapshotParams } from '@reins/client';
import { ReinsError, type ReinsEvent } from '@reins/core';

/** What the console uses of an attached session (a RemoteSession fits). */
export interface AttachedSession {
  readonly id: string;
  /** Its events as the runs they arrived in (a replay batch is one run). */
  readonly batches: AsyncIterable<readonly ReinsEvent[]>;
  /** Why the events ended early (gap, dropped connection); undefined after session.closed. */
  readonly endReason: ReinsError | undefined;
  readonly isClosed: boolean;
  /** The session's newest seq when the attach started: the events up to it are its replay. */
  readonly backlogSeq?: number;
  detach(): Promise<void>;
}

/** What the console uses of a connection (a ReinsClient fits). */
export interface DaemonLink {
  readonly closed: Promise<ReinsError>;
  readonly isClosed: boolean;
  readonly lastSnapshot: StatusSnapshotParams | undefined;
  attach(sessionId: string, options: { afterSeq: number }): Promise<AttachedSession>;
  listSessions(): Promise<SessionListing[]>;
  onStatusSnapshot(listener: (snapshot: StatusSnapshotParams) => void): () => void;
  onSessionsChanged(listener: (change: SessionsChangedParams) => void): () => void;
  close(): void;
}

export type ConnectionState =
  | { status: 'connecting' }
  | { status: 'open' }
  | { status: 'reconnecting'; attempt: number; error: ReinsError }
  /** The daemon refused the token: retrying cannot help. */
  | { status: 'refused'; error: ReinsError }
  | { status: 'disposed' };

/** Where a followed session's events go. */
export interface SessionSink {
  /** The last seq it has: the next attach resumes after it. */
  readonly lastSeq: number;
  /** A run of events, in order (a replay batch, or one live event). */
  receiveAll(events: readonly ReinsEvent[]): void;
  /** An attach started: events up to `seq` are a replay of the log (told before the first of them). */
  catchingUp?(seq: number): void;
  /** The attach failed (unknown session, afterSeq past the end): shown to the user. */
  attachFailed?(error: ReinsError): void;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ConnectionOptions {
  /** Waits before the 1st, 2nd, ... retry (the last repeats). */
  backoffMs?: number[];
  timers?: Timers;
}

const DEFAULT_BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000, 8_000];
const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

class Follow<L extends DaemonLink> {
  attached: AttachedSession | undefined;
  stopped = false;
  /** The link the current attachment belongs to. */
  private linkOfAttachment: L | undefined;

  constructor(
    readonly sessionId: string,
    readonly sink: SessionSink,
    private readonly connection: ConsoleConnection<L>,
  ) {}

  /** Attaches on `link` (or takes an attachment made there already) and pumps its events into the sink. */
  async start(link: L, adopt?: AttachedSession): Promise<void> {
    if (this.stopped || this.linkOfAttachment === link) return;
    this.linkOfAttachment = link;
    let session: AttachedSession;
    try {
      session = adopt ?? (await link.attach(this.sessionId, { afterSeq: this.sink.lastSeq }));
    } catch (error) {
      this.linkOfAttachment = undefined;
      if (link.isClosed || this.stopped) return; // the reconnect attaches again
      this.sink.attachFailed?.(ReinsError.from(error, 'protocol_error'));
      return;
    }
    if (this.stopped) {
      void session.detach().catch(() => {});
      return;
    }
    this.attached = session;
    if (session.backlogSeq !== undefined) this.sink.catchingUp?.(session.backlogSeq);
    for await (const run of session.batches) this.sink.receiveAll(run);
    if (this.attached === session) this.attached = undefined;
    // A reconnect may have attached on a newer link meanwhile: that attachment stays.
    if (this.linkOfAttachment !== link) return;
    this.linkOfAttachment = undefined;
    if (this.stopped || session.isClosed) return;
    // Ended early on a link that is still up (a gap): attach again from where the sink is.
    if (!link.isClosed && this.connection.link === link) await this.start(link);
  }

  stop(): void {
    this.stopped = true;
    const attached = this.attached;
    this.attached = undefined;
    if (attached) void attached.detach().catch(() => {});
  }
}

export class ConsoleConnection<L extends DaemonLink> {
  private current: L | undefined;
  private currentState: ConnectionState = { status: 'connecting' };
  private readonly follows = new Map<string, Follow<L>>();
  private readonly stateListeners = new Set<() => void>();
  private readonly linkListeners = new Set<(link: L) => void>();
  private readonly backoffMs: number[];
  private readonly timers: Timers;
  private retryTimer: unknown;
  private disposed = false;
  private attempt = 0;

  constructor(
    private readonly open: () => Promise<L>,
    options: ConnectionOptions = {},
  ) {
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.timers = options.timers ?? realTimers;
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  /** The open link, or undefined while (re)connecting. */
  get link(): L | undefined {
    return this.current;
  }

  /** Connects (once); reconnects by itself from then on. */
  start(): Promise<void> {
    return this.connect();
  }

  /** Follows a session's events into `sink` from sink.lastSeq on, across reconnects, until stop(). */
  follow(
    sessionId: string,
    sink: SessionSink,
    adopt?: AttachedSession,
  ): { stop(): void; session(): AttachedSession | undefined } {
    this.follows.get(sessionId)?.stop();
    const follow = new Follow(sessionId, sink, this);
    this.follows.set(sessionId, follow);
    if (this.current) void follow.start(this.current, adopt);
    else if (adopt) void adopt.detach().catch(() => {});
    return {
      stop: () => {
        follow.stop();
        if (this.follows.get(sessionId) === follow) this.follows.delete(sessionId);
      },
      session: () => follow.attached,
    };
  }

  onState(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Every link that opens (the first and each reconnect): reload what a notification may have missed. */
  onLink(listener: (link: L) => void): () => void {
    this.linkListeners.add(listener);
    if (this.current) listener(this.current);
    return () => this.linkListeners.delete(listener);
  }

  dispose(): void {
    this.disposed = true;
    this.setState({ status: 'disposed' });
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    for (const follow of this.follows.values()) follow.stop();
    this.follows.clear();
    this.current?.close();
    this.current = undefined;
  }

  private async connect(): Promise<void> {
    if (this.disposed) return;
    let link: L;
    try {
      link = await this.open();
    } catch (error) {
      this.failed(ReinsError.from(error, 'process_exited'));
      return;
    }
    if (this.disposed) {
      link.close();
      return;
    }
    this.current = link;
    this.attempt = 0;
    this.setState({ status: 'open' });
    void link.closed.then((reason) => {
      if (this.current !== link) return;
      this.current = undefined;
      this.failed(reason);
    });
    for (const listener of [...this.linkListeners]) listener(link);
    for (const follow of this.follows.values()) void follow.start(link);
  }

  private failed(error: ReinsError): void {
    if (this.disposed) return;
    if (error.code === 'auth_required') {
      this.setState({ status: 'refused', error });
      return;
    }
    this.attempt += 1;
    this.setState({ status: 'reconnecting', attempt: this.attempt, error });
    const wait = this.backoffMs[Math.min(this.attempt - 1, this.backoffMs.length - 1)] ?? 1_000;
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, wait);
  }

  private setState(state: ConnectionState): void {
    this.currentState = state;
    for (const listener of [...this.stateListeners]) listener();
  }
}
