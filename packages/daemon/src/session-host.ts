// Every session of the daemon: created, restored from the store at start (dormant), listed,
// deleted, put to sleep by the eviction rules (idle TTL, live-session cap) and woken by the next
// send, and stopped (dormant, not closed) when the daemon shuts down. It tells the daemon about
// every change so that connections can be sent sessions/changed.

import { type Harness, type HarnessId, ReinsError } from '@reins/core';
import type { AnyHarnessOptions } from '@reins/harnesses';
import type { SessionChange, SessionCreateParams } from '@reins/protocol';
import { chooseEvictions } from './eviction.js';
import { HostedSession, type HostedSessionDeps } from './hosted-session.js';
import type { Logger } from './logger.js';
import type { ProcessTracker } from './processes/tracker.js';
import type { DaemonStore, LoadedSession, StoredSession } from './store/store.js';

export type HarnessFactory = (id: HarnessId, options: AnyHarnessOptions) => Promise<Harness>;

export interface SessionHostOptions {
  store: DaemonStore;
  log: Logger;
  tracker: ProcessTracker;
  createHarness: HarnessFactory;
  /** The daemon's own options per harness, under what a session brings. */
  harnessOptions: Partial<Record<HarnessId, AnyHarnessOptions>>;
  tailSize: number;
  closedSessionsKept: number;
  idleTtlMs: number;
  maxLiveSessions: number;
  changed(sessionId: string, change: SessionChange): void;
}

export class SessionHost {
  private readonly sessions = new Map<string, HostedSession>();
  /** session/create calls in flight, up to the point where their session is hosted or gone. */
  private readonly creating = new Set<Promise<unknown>>();
  private readonly deps: HostedSessionDeps;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private sweepQueued = false;
  private stopping = false;

  constructor(private readonly options: SessionHostOptions) {
    this.deps = {
      store: options.store,
      log: options.log,
      tracker: options.tracker,
      tailSize: options.tailSize,
      limits: { idleTtlMs: options.idleTtlMs, maxLiveSessions: options.maxLiveSessions },
      harnessFor: (record, transient) => this.harnessFor(record, transient),
      changed: (session, change) => this.sessionChanged(session, change),
    };
  }

  /** Brings back every stored session: open ones dormant, closed ones listed and replayable. */
  async restore(): Promise<{ dormant: number; closed: number }> {
    const loaded = await this.options.store.loadSessions();
    let dormant = 0;
    for (const record of loaded) {
      const hosted = HostedSession.restore(this.deps, record);
      this.sessions.set(hosted.id, hosted);
      if (hosted.status === 'dormant') dormant++;
      if (await hosted.endTurnLeftByCrash()) {
        this.options.log.warn('ended a turn a dead daemon left running', { sessionId: hosted.id });
      }
    }
    await this.forgetOldClosedSessions();
    return { dormant, closed: loaded.length - dormant };
  }

  /** Starts the eviction sweeps (every tenth of the TTL, at most every 30 s). */
  startSweeping(): void {
    const ttl = this.options.idleTtlMs;
    const every = ttl > 0 && Number.isFinite(ttl) ? Math.min(30_000, Math.max(20, Math.floor(ttl / 10))) : 30_000;
    this.sweepTimer = setInterval(() => this.sweep(), every);
    this.sweepTimer.unref();
  }

  list(): HostedSession[] {
    return [...this.sessions.values()];
  }

  get(sessionId: string): HostedSession {
    const hosted = this.sessions.get(sessionId);
    if (!hosted) {
      throw new ReinsError(
        'invalid_input',
        `Unknown session "${sessionId}": session/list shows the sessions this daemon holds.`,
        { data: { sessionId } },
      );
    }
    return hosted;
  }

  create(params: SessionCreateParams): Promise<HostedSession> {
    const work = this.createNow(params);
    this.creating.add(work);
    const forget = () => this.creating.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async createNow(params: SessionCreateParams): Promise<HostedSession> {
    if (this.stopping) throw new ReinsError('process_exited', 'The Reins daemon is shutting down.');
    const hosted = await HostedSession.create(
      this.deps,
      params.harness,
      params.spec,
      params.harnessOptions as Record<string, unknown> | undefined,
      params.labels,
    );
    this.sessions.set(hosted.id, hosted);
    this.options.changed(hosted.id, 'created');
    try {
      await hosted.start();
    } catch (error) {
      // Nothing was started: the session never existed for anyone but this caller.
      this.sessions.delete(hosted.id);
      await hosted.forget();
      this.options.changed(hosted.id, 'deleted');
      throw error;
    }
    if (this.stopping) {
      await hosted.sleep('shutdown');
      throw new ReinsError('process_exited', 'The Reins daemon is shutting down.');
    }
    this.options.log.info('session created', { sessionId: hosted.id, harness: hosted.harness });
    return hosted;
  }

  /**
   * Cluster: takes on a session from the store that another worker held (it is dormant here; a
   * turn its old process left running ends failed first, as after a crash).
   */
  async adopt(loaded: LoadedSession): Promise<HostedSession> {
    const existing = this.sessions.get(loaded.sessionId);
    if (existing) return existing;
    const hosted = HostedSession.restore(this.deps, loaded);
    this.sessions.set(hosted.id, hosted);
    if (await hosted.endTurnLeftByCrash()) {
      this.options.log.warn('ended a turn the previous worker left running', { sessionId: hosted.id });
    }
    return hosted;
  }

  /** Cluster: stops holding a session another worker now owns (its process stopped first). */
  detach(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  async delete(sessionId: string): Promise<void> {
    const hosted = this.get(sessionId);
    await hosted.delete();
    this.sessions.delete(sessionId);
    this.options.log.info('session deleted', { sessionId });
  }

  private async harnessFor(record: StoredSession, transient: Record<string, unknown> | undefined): Promise<Harness> {
    if (!this.offers(record.harness)) {
      throw new ReinsError('invalid_input', `This daemon does not offer the ${record.harness} harness.`, {
        harness: record.harness,
      });
    }
    return this.options.createHarness(record.harness, {
      ...this.options.harnessOptions[record.harness],
      ...(transient ?? record.harnessOptions),
    } as AnyHarnessOptions);
  }

  /** Set by the daemon: the harness ids it offers. */
  offers: (id: HarnessId) => boolean = () => true;

  private sessionChanged(session: HostedSession, change: SessionChange): void {
    if (change === 'deleted') this.sessions.delete(session.id);
    this.options.changed(session.id, change);
    if (change === 'closed') {
      this.options.log.info('session closed', { sessionId: session.id, harness: session.harness });
      void this.forgetOldClosedSessions();
    }
    // A session that just went live may put the daemon over its cap: check soon.
    if (session.isLive && !this.sweepQueued && !this.stopping) {
      this.sweepQueued = true;
      setImmediate(() => {
        this.sweepQueued = false;
        this.sweep();
      });
    }
  }

  /** Puts to sleep what the eviction rules choose now. */
  sweep(): void {
    if (this.stopping) return;
    const now = Date.now();
    const evictions = chooseEvictions(
      this.list().map((hosted) => ({
        sessionId: hosted.id,
        live: hosted.isLive,
        busyReason: hosted.busyReason,
        lastUsedAt: hosted.lastUsedAt,
      })),
      now,
      { idleTtlMs: this.options.idleTtlMs, maxLiveSessions: this.options.maxLiveSessions },
    );
    for (const eviction of evictions) {
      const hosted = this.sessions.get(eviction.sessionId);
      if (!hosted) continue;
      hosted
        .sleep(eviction.reason)
        .catch((error: unknown) =>
          this.options.log.error('eviction failed', { sessionId: hosted.id, error: (error as Error).message }),
        );
    }
  }

  /** Keeps the newest closed sessions (listed, replayable) and forgets older ones with their logs. */
  private async forgetOldClosedSessions(): Promise<void> {
    const closed = this.list()
      .filter((hosted) => hosted.status === 'closed')
      .sort((a, b) => (a.closedAt ?? a.updatedAt) - (b.closedAt ?? b.updatedAt));
    const excess = closed.slice(0, Math.max(0, closed.length - this.options.closedSessionsKept));
    for (const hosted of excess) {
      try {
        await hosted.forget();
      } catch (error) {
        // A store that cannot write (a full disk): the session stays listed and is forgotten at a later close.
        this.options.log.warn('could not forget an old closed session', {
          sessionId: hosted.id,
          error: (error as Error).message,
        });
        return;
      }
      this.sessions.delete(hosted.id);
      this.options.changed(hosted.id, 'deleted');
    }
  }

  /** Daemon shutdown: creations settle, every live process stops, sessions stay open (dormant). */
  async shutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    await Promise.allSettled([...this.creating]);
    await Promise.allSettled(this.list().map((hosted) => hosted.sleep('shutdown')));
  }
}
