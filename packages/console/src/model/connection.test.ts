import type { SessionListing, SessionsChangedParams, StatusSnapshotParams } from '@reins/client';
import { AsyncQueue, ReinsError, type ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { type AttachedSession, ConsoleConnection, type DaemonLink, type Timers } from './connection.js';
import { SessionModel } from './session-model.js';

/** The daemon side of one fake connection: a session's whole log, served after afterSeq. */
class FakeLink implements DaemonLink {
  isClosed = false;
  lastSnapshot: StatusSnapshotParams | undefined;
  readonly attaches: Array<{ sessionId: string; afterSeq: number }> = [];
  private readonly queues: AsyncQueue<readonly ReinsEvent[]>[] = [];
  private readonly sessions: Array<{ closedReason?: ReinsError }> = [];
  private closeWith!: (reason: ReinsError) => void;
  readonly closed = new Promise<ReinsError>((resolve) => {
    this.closeWith = resolve;
  });

  constructor(private readonly log: ReinsEvent[]) {}

  async attach(sessionId: string, options: { afterSeq: number }): Promise<AttachedSession> {
    this.attaches.push({ sessionId, afterSeq: options.afterSeq });
    const queue = new AsyncQueue<readonly ReinsEvent[]>(Number.POSITIVE_INFINITY);
    // The replay comes as one batch, as the daemon sends it to a client that takes batches.
    const backlog = this.log.filter((event) => event.seq > options.afterSeq);
    if (backlog.length > 0) queue.push(backlog);
    this.queues.push(queue);
    const state: { closedReason?: ReinsError } = {};
    this.sessions.push(state);
    return {
      id: sessionId,
      batches: queue,
      backlogSeq: this.log.at(-1)?.seq ?? 0,
      get endReason() {
        return state.closedReason;
      },
      isClosed: false,
      detach: async () => queue.end(),
    };
  }

  /** A live event: into the log and to every open attachment. */
  emit(event: ReinsEvent): void {
    this.log.push(event);
    for (const queue of this.queues) queue.push([event]);
  }

  /** The socket dropped. */
  drop(): void {
    this.isClosed = true;
    const reason = new ReinsError('process_exited', 'The daemon connection closed.');
    for (const [index, queue] of this.queues.entries()) {
      const session = this.sessions[index];
      if (session) session.closedReason = reason;
      queue.end();
    }
    this.closeWith(reason);
  }

  async listSessions(): Promise<SessionListing[]> {
    return [];
  }
  onStatusSnapshot(_listener: (snapshot: StatusSnapshotParams) => void): () => void {
    return () => {};
  }
  onSessionsChanged(_listener: (change: SessionsChangedParams) => void): () => void {
    return () => {};
  }
  close(): void {
    if (!this.isClosed) this.drop();
  }
}

/** Timers fired by hand. */
function manualTimers(): Timers & { fire(): void; count: number } {
  const waiting: Array<() => void> = [];
  return {
    setTimeout(callback) {
      waiting.push(callback);
      return waiting.length;
    },
    clearTimeout() {},
    fire() {
      for (const callback of waiting.splice(0)) callback();
    },
    get count() {
      return waiting.length;
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const immediate = (callback: () => void) => callback();

describe('ConsoleConnection', () => {
  it('re-attaches with afterSeq after a dropped socket: no gap, no duplicate', async () => {
    const next = eventStream();
    const log: ReinsEvent[] = [];
    for (let index = 0; index < 3; index++) {
      log.push(next({ type: 'notice', kind: 'info', message: `n${index}` }));
    }
    const links: FakeLink[] = [];
    const timers = manualTimers();
    const connection = new ConsoleConnection(
      async () => {
        const link = new FakeLink(log);
        links.push(link);
        return link;
      },
      { timers, backoffMs: [10] },
    );
    await connection.start();
    const model = new SessionModel('s1', immediate);
    connection.follow('s1', model);
    await settle();
    expect(model.lastSeq).toBe(3);

    links[0]?.emit(next({ type: 'notice', kind: 'info', message: 'n3' }));
    await settle();
    links[0]?.drop();
    await settle();
    expect(connection.state).toMatchObject({ status: 'reconnecting', attempt: 1 });
    // While away, the session went on.
    log.push(next({ type: 'notice', kind: 'info', message: 'n4' }));
    log.push(next({ type: 'notice', kind: 'info', message: 'n5' }));

    timers.fire();
    await settle();
    expect(connection.state.status).toBe('open');
    expect(links[1]?.attaches).toEqual([{ sessionId: 's1', afterSeq: 4 }]);
    expect(model.transcript.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    connection.dispose();
  });

  it('stops retrying when the daemon refuses the token (it restarted), and says so', async () => {
    const timers = manualTimers();
    const connection = new ConsoleConnection(
      async () => {
        throw new ReinsError('auth_required', 'The token is wrong.');
      },
      { timers },
    );
    await connection.start();
    expect(connection.state).toMatchObject({ status: 'refused', error: { code: 'auth_required' } });
    expect(timers.count).toBe(0);
  });

  it('backs off while the daemon is away, then attaches everything it follows', async () => {
    const timers = manualTimers();
    let up = false;
    const link = new FakeLink([eventStream()({ type: 'notice', kind: 'info', message: 'x' })]);
    const connection = new ConsoleConnection(
      async () => {
        if (!up) throw new ReinsError('process_exited', 'Could not connect to the Reins daemon.');
        return link;
      },
      { timers, backoffMs: [1, 2] },
    );
    await connection.start();
    const model = new SessionModel('s9', immediate);
    connection.follow('s9', model);
    expect(connection.state).toMatchObject({ status: 'reconnecting', attempt: 1 });
    timers.fire();
    await settle();
    expect(connection.state).toMatchObject({ status: 'reconnecting', attempt: 2 });
    up = true;
    timers.fire();
    await settle();
    expect(connection.state.status).toBe('open');
    expect(link.attaches).toEqual([{ sessionId: 's9', afterSeq: 0 }]);
    expect(model.lastSeq).toBe(1);
    connection.dispose();
  });

  it('reports an attach the daemon refused to the sink', async () => {
    const link = new FakeLink([]);
    link.attach = async () => {
      throw new ReinsError('invalid_input', 'Unknown session nope.');
    };
    const connection = new ConsoleConnection(async () => link);
    await connection.start();
    const errors: string[] = [];
    connection.follow('nope', { lastSeq: 0, receiveAll() {}, attachFailed: (error) => errors.push(error.code) });
    await settle();
    expect(errors).toEqual(['invalid_input']);
    connection.dispose();
  });
});
