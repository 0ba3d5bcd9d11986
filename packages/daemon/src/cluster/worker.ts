// A cluster worker: the daemon's own SessionHost (sessions, harness processes, eviction, resume)
// over the JetStream store, serving the gateways' requests for its sessions by request/reply on
// `reins.worker.<id>.rpc`, and beating its heartbeat with its labels and the harnesses it offers.
// At start it takes its home's lock, reaps what a crashed run of it left, and takes back the
// sessions it held before (dormant). It lets go of a session someone else took over (fenced), and
// of every session when it has been cut off from NATS for most of the heartbeat deadline: by the
// time the gateways find it gone, it has stopped writing (docs/architecture/cluster.md).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { type HarnessId, ReinsError } from '@reins/core';
import { type AnyHarnessOptions, createHarness } from '@reins/harnesses';
import { describeInvalidParams, METHODS, type MethodName, type ParamsOf } from '@reins/protocol';
import { ProbeMemory, probeHarness } from '../harness-probe.js';
import type { HostedSession } from '../hosted-session.js';
import type { Logger } from '../logger.js';
import { reapProcessGroups } from '../processes/reaper.js';
import { ProcessTracker } from '../processes/tracker.js';
import { type HarnessFactory, SessionHost } from '../session-host.js';
import { EventStream } from './event-stream.js';
import { JetStreamStore } from './jetstream-store.js';
import { memberKey, workerRpcSubject } from './layout.js';
import { Heartbeat } from './membership.js';
import type { NatsCluster } from './nats.js';
import { formatLabels, type Labels, labelsMatch } from './options.js';
import {
  decodeJson,
  encodeJson,
  type MemberRecord,
  notHereError,
  type WorkerReply,
  WorkerRequestSchema,
} from './records.js';
import { PART_HEADER, parsePart, UPLOAD_HEADER, UploadAssembler } from './request-parts.js';
import { type HomeLock, lockWorkerHome, workerIdentity } from './worker-home.js';

export interface WorkerOptions {
  nats: NatsCluster;
  home: string;
  labels: Labels;
  heartbeatTtlMs: number;
  log: Logger;
  harnesses: HarnessId[];
  harnessOptions: Partial<Record<HarnessId, AnyHarnessOptions>>;
  createHarness?: HarnessFactory;
  eventBufferSize: number;
  closedSessionsKept: number;
  idleTtlMs: number;
  maxLiveSessions: number;
  probeTimeoutMs: number;
}

const newEpoch = () => randomBytes(6).toString('hex');
/** How long a leaving worker retries writes NATS does not take. */
const SHUTDOWN_WRITES_MS = 5_000;

export class ClusterWorker {
  readonly id: string;
  private epoch = newEpoch();
  private readonly startedAt = Date.now();
  private readonly store: JetStreamStore;
  private readonly tracker: ProcessTracker;
  private readonly host: SessionHost;
  private readonly heartbeat: Heartbeat;
  private subscription: Subscription | undefined;
  private readonly serving = new Set<Promise<void>>();
  /** Requests arriving in parts (request-parts.ts). */
  private readonly uploads = new UploadAssembler();
  /** Each harness's discovery and health, remembered as a local daemon does (harness-probe.ts): every gateway's harness/list asks. */
  private readonly listings = new ProbeMemory((id) =>
    probeHarness(id, this.options.harnessOptions[id] ?? {}, this.options.probeTimeoutMs),
  );
  private closing: Promise<void> | undefined;
  /** After shutdown stopped every session: NATS writes are no longer retried. */
  private writesStopped = false;

  private constructor(
    private readonly options: WorkerOptions,
    id: string,
    private readonly lock: HomeLock,
  ) {
    this.id = id;
    const { nats, log } = options;
    const events = new EventStream(
      nats,
      () => `worker.${this.id}.${this.epoch}`,
      log,
      () => this.writesStopped,
    );
    this.store = new JetStreamStore(nats, events, id, () => this.epoch, log, {
      fenced: (sessionId) => this.letGo(sessionId),
    });
    this.tracker = new ProcessTracker(this.store, log);
    this.host = new SessionHost({
      store: this.store,
      log,
      tracker: this.tracker,
      createHarness: options.createHarness ?? ((harness, harnessOptions) => createHarness(harness, harnessOptions)),
      harnessOptions: options.harnessOptions,
      tailSize: options.eventBufferSize,
      closedSessionsKept: options.closedSessionsKept,
      idleTtlMs: options.idleTtlMs,
      maxLiveSessions: options.maxLiveSessions,
      changed: (sessionId, change) => {
        if (change === 'deleted') return;
        const hosted = this.find(sessionId);
        if (hosted) this.store.setStatus(sessionId, hosted.status, hosted.lastSeq);
      },
    });
    this.host.offers = (harness) => options.harnesses.includes(harness);
    this.heartbeat = new Heartbeat(nats, {
      role: 'worker',
      id,
      ttlMs: options.heartbeatTtlMs,
      record: () => this.memberRecord(),
      cutOff: () => void this.letGoOfEverything(),
      log,
    });
  }

  /** Joins the cluster: lock, reap, take back its sessions, serve, beat. */
  static async start(options: WorkerOptions): Promise<ClusterWorker> {
    const lock = lockWorkerHome(options.home);
    let worker: ClusterWorker | undefined;
    try {
      worker = new ClusterWorker(options, await workerIdentity(options.home), lock);
      await worker.recover();
      worker.subscription = options.nats.nc.subscribe(workerRpcSubject(worker.id), {
        callback: (error, message) => {
          if (!error) worker?.serve(message);
        },
      });
      await worker.heartbeat.start();
      worker.host.startSweeping();
      options.log.info('worker joined the cluster', {
        workerId: worker.id,
        labels: formatLabels(options.labels),
        sessions: worker.host.list().length,
      });
      return worker;
    } catch (error) {
      if (worker) await worker.close().catch(() => {});
      else lock.release();
      throw error;
    }
  }

  get labels(): Labels {
    return this.options.labels;
  }

  /** Sessions this worker holds now. */
  sessionIds(): string[] {
    return this.host.list().map((hosted) => hosted.id);
  }

  private async recover(): Promise<void> {
    const open = await this.store.openProcessGroups();
    if (open.length > 0) {
      const report = await reapProcessGroups(open);
      await Promise.all(report.settled.map((group) => this.store.endProcessGroup(group.id)));
      for (const killed of report.killed) {
        this.options.log.warn('reaped a process group left by a worker that died', {
          pgid: killed.pgid,
          sessionId: killed.sessionId,
        });
      }
    }
    const restored = await this.host.restore();
    this.options.log.info("took back this worker's sessions", { dormant: restored.dormant, closed: restored.closed });
  }

  private memberRecord(): MemberRecord {
    return {
      role: 'worker',
      id: this.id,
      epoch: this.epoch,
      labels: this.options.labels,
      harnesses: this.options.harnesses,
      liveSessions: this.host.list().filter((hosted) => hosted.isLive).length,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
    };
  }

  private find(sessionId: string): HostedSession | undefined {
    try {
      return this.host.get(sessionId);
    } catch {
      return undefined;
    }
  }

  private hosted(sessionId: string): HostedSession {
    const hosted = this.find(sessionId);
    if (!hosted) throw notHereError(sessionId, this.id);
    return hosted;
  }

  // ---- requests from gateways ---------------------------------------------------------------------

  private serve(message: Msg): void {
    const work = this.answer(message).finally(() => this.serving.delete(work));
    this.serving.add(work);
  }

  private async answer(message: Msg): Promise<void> {
    let reply: WorkerReply;
    try {
      const data = this.wholeRequest(message);
      if (!data) {
        if (message.reply) message.respond(encodeJson({ result: null }));
        return;
      }
      const request = decodeJson(data, WorkerRequestSchema);
      if (!request) throw new ReinsError('protocol_error', 'The worker got a request it cannot read.');
      if (this.closing) throw new ReinsError('process_exited', `Worker ${this.id} is shutting down.`);
      reply = { result: await this.dispatch(request.method, request.params) };
    } catch (error) {
      reply = { error: ReinsError.from(error, 'protocol_error').toInfo() };
    }
    if (message.reply) message.respond(encodeJson(reply));
  }

  /** The request's bytes: the message's own, or (its last part) the whole of an upload; undefined: more parts to come. */
  private wholeRequest(message: Msg): Uint8Array | undefined {
    const upload = message.headers?.get(UPLOAD_HEADER);
    if (!upload) return message.data;
    const part = parsePart(message.headers?.get(PART_HEADER));
    if (!part) throw new ReinsError('protocol_error', 'The worker got a request part it cannot read.');
    const step = this.uploads.take(upload, part, message.data);
    if (step.kind === 'broken') {
      throw new ReinsError('protocol_error', `Worker ${this.id} dropped a request sent in parts: ${step.reason}.`);
    }
    return step.kind === 'whole' ? step.data : undefined;
  }

  private params<M extends MethodName>(method: M, params: unknown): NonNullable<ParamsOf<M>> {
    const checked = METHODS[method].params.safeParse(params);
    if (!checked.success) throw new ReinsError('invalid_input', describeInvalidParams(checked.error, method));
    return checked.data as NonNullable<ParamsOf<M>>;
  }

  private async dispatch(method: string, raw: unknown): Promise<unknown> {
    switch (method) {
      case 'session/create': {
        const params = this.params('session/create', raw);
        if (!labelsMatch(params.labels, this.options.labels)) {
          throw new ReinsError(
            'invalid_input',
            `Worker ${this.id} (labels ${formatLabels(this.options.labels)}) does not have the labels ${formatLabels(params.labels)}.`,
          );
        }
        const hosted = await this.host.create(params);
        this.heartbeat.beatNow();
        return {
          sessionId: hosted.id,
          harness: hosted.harness,
          ...(hosted.nativeSessionId !== undefined ? { nativeSessionId: hosted.nativeSessionId } : {}),
        };
      }
      case 'session/send': {
        const params = this.params('session/send', raw);
        return this.hosted(params.sessionId).send(params.input, params.options);
      }
      case 'session/interrupt':
        await this.hosted(this.params('session/interrupt', raw).sessionId).interrupt();
        return {};
      case 'session/setModel': {
        const params = this.params('session/setModel', raw);
        return this.hosted(params.sessionId).setModel(params.model);
      }
      case 'session/setEffort': {
        const params = this.params('session/setEffort', raw);
        return this.hosted(params.sessionId).setEffort(params.effort);
      }
      case 'session/respondToPermission': {
        const params = this.params('session/respondToPermission', raw);
        await this.hosted(params.sessionId).respondToPermission(params.requestId, params.decision);
        return {};
      }
      case 'session/close': {
        const hosted = this.hosted(this.params('session/close', raw).sessionId);
        await hosted.close();
        // The gateway answers its client once its own view has every event up to this one.
        return { lastSeq: hosted.lastSeq };
      }
      case 'session/delete': {
        const { sessionId } = this.params('session/delete', raw);
        this.hosted(sessionId);
        await this.host.delete(sessionId);
        return {};
      }
      case 'cluster/adopt':
        // Its params are a session reference, like session/close's.
        return this.adopt(this.params('session/close', raw).sessionId);
      case 'cluster/harnesses':
        return this.tracker.run(undefined, () => this.listings.list(this.options.harnesses));
      default:
        throw new ReinsError('invalid_input', `Workers do not serve ${method}.`);
    }
  }

  /** Takes on a lost session (labels and harness allowing): dormant here, its log going on. */
  private async adopt(sessionId: string): Promise<{ lastSeq: number }> {
    const existing = this.find(sessionId);
    if (existing) return { lastSeq: existing.lastSeq };
    const loaded = await this.store.adopt(sessionId, (record) => {
      const wanted = record.session.labels;
      if (!labelsMatch(wanted, this.options.labels) || !this.options.harnesses.includes(record.session.harness)) {
        throw new ReinsError(
          'invalid_input',
          `Worker ${this.id} cannot take session ${sessionId}: it needs the labels ${formatLabels(wanted)} and the ${record.session.harness} harness.`,
        );
      }
    });
    const hosted = await this.host.adopt(loaded);
    this.options.log.info('adopted a lost session', { sessionId, lastSeq: hosted.lastSeq });
    return { lastSeq: hosted.lastSeq };
  }

  // ---- letting go ---------------------------------------------------------------------------------

  /** Someone else owns the session now: its process stops, nothing more is written for it here. */
  private letGo(sessionId: string): void {
    const hosted = this.find(sessionId);
    this.store.release(sessionId);
    if (!hosted) return;
    this.host.detach(sessionId);
    hosted
      .sleep('shutdown')
      .catch((error: unknown) =>
        this.options.log.error('could not stop a session let go', { sessionId, error: (error as Error).message }),
      );
  }

  /**
   * Cut off from NATS for most of the heartbeat deadline: the gateways are about to find this
   * worker gone and resume its sessions elsewhere, so every one stops here first. The worker goes
   * on as a new run (epoch) with no sessions.
   */
  private async letGoOfEverything(): Promise<void> {
    const all = this.host.list();
    this.options.log.error('letting go of every session (cut off from NATS)', { sessions: all.length });
    for (const hosted of all) this.letGo(hosted.id);
    this.epoch = newEpoch();
  }

  /** Leaves the cluster: every session sleeps (dormant; gateways then mark them lost and any matching worker resumes them). */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // With NATS away, what is left unwritten after a while stays so (the sessions come back dormant anyway).
    const giveUp = setTimeout(() => {
      this.options.log.warn('leaving with writes NATS did not take', { workerId: this.id });
      this.writesStopped = true;
      this.store.stopRetrying();
    }, SHUTDOWN_WRITES_MS);
    await this.host.shutdown();
    this.writesStopped = true;
    await this.subscription?.drain().catch(() => {});
    await Promise.allSettled([...this.serving]);
    await this.heartbeat.stop();
    await this.tracker.close();
    await this.store.close();
    clearTimeout(giveUp);
    this.lock.release();
    this.options.log.info('worker left the cluster', { workerId: this.id });
  }
}

export const workerMemberKey = (id: string) => memberKey('worker', id);
