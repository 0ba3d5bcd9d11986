// A cluster gateway: the daemon's WebSocket protocol (protocol 2, unchanged for clients) in front
// of sessions held by workers anywhere. It is the daemon's SessionSource: it keeps a mirror of
// every session (mirror.ts) from the sessions bucket's watch and its one feed of the events
// stream, so any gateway replays any session's whole log by seq; it routes each request to the
// worker holding the session (request/reply), places new sessions by labels (placement.ts), and
// watches the members' heartbeats: when a worker is gone it marks that worker's sessions lost and
// ends their running turns (orphans.ts), and the next send resumes a lost session on a matching
// worker. docs/architecture/cluster.md has the picture.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KvWatchEntry } from '@nats-io/kv';
import { ReinsError } from '@reins/core';
import type { HarnessListing, SessionChange, SessionCreateParams } from '@reins/protocol';
import type { Logger } from '../logger.js';
import type { SessionSource } from '../session-directory.js';
import { EventFeed } from './event-feed.js';
import { EventStream, type Newest, type StoredEvent } from './event-stream.js';
import { isToken, memberKey } from './layout.js';
import { Heartbeat, MembersView } from './membership.js';
import { type MirrorHost, SessionMirror } from './mirror.js';
import type { NatsCluster, RetryOptions } from './nats.js';
import { heartbeatIntervalMs } from './options.js';
import {
  type CurrentRecord,
  changeOrphanSetting,
  closeOrphan,
  deleteOrphan,
  markLost,
  type OrphanContext,
  readRecord,
} from './orphans.js';
import { chooseWorker } from './placement.js';
import {
  type ClusterSessionRecord,
  decodeRecord,
  isAdoptable,
  isNotHere,
  type MemberRecord,
  type WorkerMethod,
} from './records.js';
import { isWorkerGone, WorkerClient, workerGone } from './worker-client.js';

export interface GatewayOptions {
  nats: NatsCluster;
  heartbeatTtlMs: number;
  log: Logger;
  /** Recent events kept in memory per session for replay (default 256). */
  eventBufferSize?: number;
  /** Deadline of a request that may start a harness (create, send, adopt) (ms, default 5 min). */
  longRequestTimeoutMs?: number;
  /** Deadline of every other request to a worker (ms, default 60 s). */
  requestTimeoutMs?: number;
}

export class ClusterGateway implements SessionSource, MirrorHost {
  readonly id = `${
    hostname()
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 40) || 'gateway'
  }-${randomBytes(3).toString('hex')}`;
  readonly log: Logger;
  private readonly epoch = randomBytes(6).toString('hex');
  private readonly startedAt = Date.now();
  private readonly nats: NatsCluster;
  private readonly stream: EventStream;
  private readonly members: MembersView;
  private readonly heartbeat: Heartbeat;
  private readonly mirrors = new Map<string, SessionMirror>();
  /** Sessions being marked lost by this gateway right now. */
  private readonly marking = new Set<string>();
  private readonly workers: WorkerClient;
  private feed: EventFeed | undefined;
  private watch: { stop(): void } | undefined;
  private detector: ReturnType<typeof setInterval> | undefined;
  private sessionsReady = false;
  private detecting = true;
  private closed = false;
  private readonly retry: RetryOptions;
  private readonly orphans: OrphanContext;
  /** Set by the daemon that serves this gateway: sessions/changed to every client. */
  changed: (sessionId: string, change: SessionChange) => void = () => {};

  private constructor(private readonly options: GatewayOptions) {
    this.nats = options.nats;
    this.log = options.log;
    this.retry = { stopped: () => this.closed, log: this.log, what: 'gateway write' };
    this.stream = new EventStream(
      this.nats,
      () => `gateway.${this.id}.${this.epoch}`,
      this.log,
      () => this.closed,
    );
    this.orphans = {
      nats: this.nats,
      stream: this.stream,
      log: this.log,
      retry: this.retry,
      heartbeatTtlMs: options.heartbeatTtlMs,
    };
    this.workers = new WorkerClient(this.nats, {
      ...(options.longRequestTimeoutMs !== undefined ? { longRequestTimeoutMs: options.longRequestTimeoutMs } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
    this.members = new MembersView(this.nats, memberKey('gateway', this.id), options.heartbeatTtlMs, this.log, () =>
      this.detect(),
    );
    this.heartbeat = new Heartbeat(this.nats, {
      role: 'gateway',
      id: this.id,
      ttlMs: options.heartbeatTtlMs,
      record: () => this.memberRecord(),
      log: this.log,
    });
  }

  get location(): string {
    return this.nats.location;
  }

  /** Watches members and sessions, starts the event feed, beats. Resolves once every session is known. */
  static async start(options: GatewayOptions): Promise<ClusterGateway> {
    const gateway = new ClusterGateway(options);
    try {
      await gateway.members.start();
      // The feed starts before the sessions are read: whatever is written from now on reaches a mirror.
      gateway.feed = await EventFeed.start(gateway.nats, gateway.log, (sessionId, events) =>
        gateway.mirrors.get(sessionId)?.offer(events),
      );
      await gateway.watchSessions();
      await gateway.heartbeat.start();
      await Promise.all([...gateway.mirrors.values()].map((mirror) => mirror.ready));
      const interval = Math.max(100, Math.floor(heartbeatIntervalMs(options.heartbeatTtlMs) / 2));
      gateway.detector = setInterval(() => gateway.detect(), interval);
      gateway.detector.unref();
      options.log.info('gateway joined the cluster', { gatewayId: gateway.id, sessions: gateway.mirrors.size });
      return gateway;
    } catch (error) {
      await gateway.close().catch(() => {});
      throw error;
    }
  }

  private memberRecord(): MemberRecord {
    return {
      role: 'gateway',
      id: this.id,
      epoch: this.epoch,
      labels: {},
      harnesses: [],
      liveSessions: 0,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
    };
  }

  // ---- the sessions bucket ------------------------------------------------------------------------

  private async watchSessions(): Promise<void> {
    const status = await this.nats.sessions.status();
    const watch = await this.nats.sessions.watch();
    this.watch = watch;
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    if (status.values === 0) markReady();
    // Should the bucket have emptied between the two calls, nothing marks the end of the first values.
    const fallback = setTimeout(markReady, 5_000);
    void (async () => {
      for await (const entry of watch) {
        this.take(entry);
        if (entry.isUpdate) markReady();
      }
    })().catch((error: unknown) => this.log.error('sessions watch ended', { error: (error as Error).message }));
    await ready;
    clearTimeout(fallback);
    this.sessionsReady = true;
  }

  private take(entry: KvWatchEntry): void {
    if (!isToken(entry.key)) return;
    const mirror = this.mirrors.get(entry.key);
    if (entry.operation !== 'PUT') {
      if (!mirror) return;
      mirror.markDeleted();
      this.mirrors.delete(entry.key);
      this.changed(entry.key, 'deleted');
      return;
    }
    const record = decodeRecord(entry.value);
    if (!record || record.session.sessionId !== entry.key) {
      this.log.warn('skipped a session record that is not one', { key: entry.key });
      return;
    }
    if (!mirror) {
      this.adoptRecord(record, entry.revision);
      if (entry.isUpdate) this.changed(entry.key, 'created');
      return;
    }
    const change = mirror.updateRecord(record, entry.revision);
    if (change) this.changed(entry.key, change);
  }

  private adoptRecord(record: ClusterSessionRecord, revision: number): SessionMirror {
    const mirror = new SessionMirror(this, record, revision, this.options.eventBufferSize ?? 256);
    this.mirrors.set(record.session.sessionId, mirror);
    mirror.ready.catch((error: unknown) =>
      this.log.error('could not read a session log', {
        sessionId: record.session.sessionId,
        error: (error as Error).message,
      }),
    );
    return mirror;
  }

  /** A session this gateway has not heard of yet (created a moment ago, maybe elsewhere): read it now. */
  private async lookup(sessionId: string): Promise<SessionMirror | undefined> {
    const known = this.mirrors.get(sessionId);
    if (known) return known;
    const current = await readRecord(this.orphans, sessionId);
    if (!current) return undefined;
    const raced = this.mirrors.get(sessionId);
    if (raced) return raced;
    // The watch will bring this revision too, and find the mirror there: say "created" now.
    const mirror = this.adoptRecord(current.record, current.revision);
    this.changed(sessionId, 'created');
    return mirror;
  }

  /** The record as it is in the bucket now (the mirror learns it too). */
  private async refresh(mirror: SessionMirror): Promise<CurrentRecord | undefined> {
    const current = await readRecord(this.orphans, mirror.id);
    if (current) {
      const change = mirror.updateRecord(current.record, current.revision);
      if (change) this.changed(mirror.id, change);
    }
    return current;
  }

  // ---- SessionSource ------------------------------------------------------------------------------

  list(): SessionMirror[] {
    return [...this.mirrors.values()].filter((mirror) => !mirror.isDeleted);
  }

  get(sessionId: string): SessionMirror {
    const mirror = this.mirrors.get(sessionId);
    if (!mirror || mirror.isDeleted) {
      throw new ReinsError(
        'invalid_input',
        `Unknown session "${sessionId}": session/list shows the sessions of this cluster.`,
        { data: { sessionId } },
      );
    }
    return mirror;
  }

  async prepare(sessionId: string, afterSeq: number | undefined): Promise<void> {
    if (!isToken(sessionId)) return; // get() says it is unknown
    const mirror = await this.lookup(sessionId);
    if (!mirror) return;
    await mirror.ready;
    if (afterSeq !== undefined && afterSeq > mirror.lastSeq) await mirror.reach(afterSeq);
  }

  async create(params: SessionCreateParams): Promise<SessionMirror> {
    const worker = chooseWorker(this.liveWorkers(), { harness: params.harness, labels: params.labels ?? {} });
    const created = (await this.request(worker, 'session/create', params)) as { sessionId: string };
    const mirror = await this.lookup(created.sessionId);
    if (!mirror) throw new ReinsError('protocol_error', `Worker ${worker.id} created a session that is not recorded.`);
    await mirror.ready;
    return mirror;
  }

  async delete(sessionId: string): Promise<void> {
    const mirror = this.get(sessionId);
    await this.route(mirror, 'session/delete', { sessionId });
    mirror.markDeleted();
    if (this.mirrors.delete(sessionId)) this.changed(sessionId, 'deleted');
  }

  /** Every live worker's harness/list, merged: for each harness the listing of a worker that has it. */
  listHarnesses(): Promise<HarnessListing[]> {
    return this.workers.harnesses(this.liveWorkers());
  }

  // ---- MirrorHost ---------------------------------------------------------------------------------

  readStored(sessionId: string, afterSeq: number, limit: number, start?: number): Promise<StoredEvent[]> {
    return this.stream.read(sessionId, afterSeq, limit, start);
  }

  newestStored(sessionId: string): Promise<Newest | undefined> {
    return this.stream.tail(sessionId);
  }

  /**
   * A client request on a session: to its holder; handled here when the session is lost or closed.
   * While its holder does not answer (gone, not yet found gone, or coming back) it is tried again
   * every interval for up to a heartbeat deadline and a little more: by then either the holder
   * answers or this gateway has marked the session lost and serves it as an orphan.
   */
  async route(mirror: SessionMirror, method: string, params: Record<string, unknown>, hops = 0): Promise<unknown> {
    if (hops > 3) throw workerGone(mirror.record.worker, method, 'the session kept moving between workers');
    const interval = heartbeatIntervalMs(this.options.heartbeatTtlMs);
    const deadline = performance.now() + this.options.heartbeatTtlMs + 3 * interval;
    let lastError: unknown;
    for (;;) {
      const record = mirror.record;
      const found = this.members.liveness.liveWorker(record.worker, performance.now());
      const holder = found?.epoch === record.epoch ? found : undefined;
      // A closed session needs no process: its holder serves it while it is there, else this gateway.
      if (record.status === 'lost' || (record.session.state === 'closed' && !holder)) {
        return this.serveOrphan(mirror, method, params, hops);
      }
      if (holder) {
        try {
          const result = await this.request(holder, method as WorkerMethod, params);
          if (method === 'session/close') await mirror.reach((result as { lastSeq?: number }).lastSeq ?? 0);
          return result;
        } catch (error) {
          if (!isNotHere(error) && !isWorkerGone(error)) throw error;
          lastError = error;
        }
      }
      if (performance.now() > deadline) {
        throw ReinsError.isInstance(lastError)
          ? lastError
          : workerGone(record.worker, method, 'it does not answer and has not been found gone yet');
      }
      await sleep(interval);
      await this.refresh(mirror);
    }
  }

  /** What a session nobody holds can still do: resume on a send, close, delete, keep a setting. */
  private async serveOrphan(
    mirror: SessionMirror,
    method: string,
    params: Record<string, unknown>,
    hops: number,
  ): Promise<unknown> {
    const again = () => this.route(mirror, method, params, hops + 1);
    const current = await this.settled(mirror);
    const { record } = current;
    const holder = this.members.liveness.liveWorker(record.worker, performance.now());
    if (record.status !== 'lost' && (record.session.state !== 'closed' || holder?.epoch === record.epoch)) {
      return again();
    }
    const closed = record.session.state === 'closed';
    switch (method) {
      case 'session/send': {
        if (closed) throw closedError(mirror.id);
        const worker = chooseWorker(this.liveWorkers(), {
          harness: record.session.harness,
          labels: record.session.labels ?? {},
          sessionId: mirror.id,
        });
        try {
          await this.request(worker, 'cluster/adopt', { sessionId: mirror.id });
        } catch (error) {
          if (!isNotHere(error)) throw error;
        }
        // Adopted by this worker (or by another in the same moment): it holds the session now.
        await this.refresh(mirror);
        return again();
      }
      case 'session/interrupt':
        return {};
      case 'session/setModel':
      case 'session/setEffort': {
        if (closed) throw closedError(mirror.id);
        const change =
          method === 'session/setModel' ? { model: String(params.model) } : { effort: String(params.effort) };
        if (!(await changeOrphanSetting(this.orphans, current, change))) return again();
        await this.refresh(mirror);
        return { applied: 'next_turn' };
      }
      case 'session/respondToPermission':
        throw new ReinsError(
          'invalid_input',
          `Session ${mirror.id} has no process waiting for permission request ${String(params.requestId)} (it is ${mirror.status}).`,
          { data: { sessionId: mirror.id, requestId: params.requestId } },
        );
      case 'session/close': {
        if (closed) return {};
        if (!(await closeOrphan(this.orphans, current))) return again();
        await this.refresh(mirror);
        await mirror.reach(Number.MAX_SAFE_INTEGER);
        return {};
      }
      case 'session/delete': {
        if (!(await deleteOrphan(this.orphans, current))) return again();
        return {};
      }
      default:
        throw new ReinsError('invalid_input', `${method} is not a session request.`);
    }
  }

  /** The record, once a lost mark in progress is done (the finder is still ending its turn). */
  private async settled(mirror: SessionMirror): Promise<CurrentRecord> {
    for (;;) {
      const current = (await this.refresh(mirror)) ?? { record: mirror.record, revision: mirror.recordRevision };
      const { record } = current;
      if (record.status !== 'lost' || record.session.state === 'closed' || isAdoptable(record, Date.now())) {
        return current;
      }
      await sleep(100);
    }
  }

  // ---- workers ------------------------------------------------------------------------------------

  private liveWorkers(): MemberRecord[] {
    return this.members.liveness.liveWorkers(performance.now());
  }

  private request(worker: MemberRecord, method: WorkerMethod, params: unknown): Promise<unknown> {
    return this.workers.request(worker, method, params);
  }

  /** Marks the sessions of workers that are gone lost; fails requests waiting on those workers. */
  private detect(): void {
    if (this.closed || !this.sessionsReady || !this.detecting) return;
    const now = performance.now();
    const liveness = this.members.liveness;
    if (!liveness.isCurrent(now)) return;
    this.workers.failRequestsToGone((workerId, epoch) => !liveness.holderMayBeAlive(workerId, epoch, now));
    for (const mirror of this.mirrors.values()) {
      const { record } = mirror;
      if (record.status === 'lost' || record.session.state === 'closed' || this.marking.has(mirror.id)) continue;
      if (liveness.holderMayBeAlive(record.worker, record.epoch, now)) continue;
      this.marking.add(mirror.id);
      void markLost(this.orphans, { record, revision: mirror.recordRevision })
        .then(async (marked) => {
          if (marked) await this.refresh(mirror);
        })
        .catch((error: unknown) =>
          this.log.error('could not mark a session lost', { sessionId: mirror.id, error: (error as Error).message }),
        )
        .finally(() => this.marking.delete(mirror.id));
    }
  }

  /** Stops looking for workers that are gone (this process's own worker is about to leave on purpose). */
  stopDetecting(): void {
    clearInterval(this.detector);
    this.detector = undefined;
    this.detecting = false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopDetecting();
    this.feed?.stop();
    this.watch?.stop();
    this.members.stop();
    await this.heartbeat.stop();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function closedError(sessionId: string): ReinsError {
  return new ReinsError(
    'invalid_input',
    `Session ${sessionId} is closed; create a new one (or resume its conversation).`,
    {
      data: { sessionId },
    },
  );
}
