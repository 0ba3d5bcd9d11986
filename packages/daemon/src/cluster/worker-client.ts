// A gateway's requests to workers (request/reply on `reins.worker.<id>.rpc`): each has a deadline
// (long for what may start a harness), and each waits on one run of one worker, so when the
// gateway finds that run gone the request fails at once instead of at its deadline. Also the
// cluster's harness/list: every live worker's, merged. A request bigger than one NATS message goes
// in parts (request-parts.ts).

import { randomUUID } from 'node:crypto';
import { headers, type Msg } from '@nats-io/transport-node';
import { ReinsError } from '@reins/core';
import type { HarnessListing } from '@reins/protocol';
import { workerRpcSubject } from './layout.js';
import { isNoResponders, isTimeout, type NatsCluster } from './nats.js';
import {
  decodeJson,
  encodeJson,
  type MemberRecord,
  replyError,
  type WorkerMethod,
  WorkerReplySchema,
} from './records.js';
import { MAX_REQUEST_BYTES, PART_HEADER, splitRequest, UPLOAD_HEADER } from './request-parts.js';

/** Room left in a message for its headers. */
const HEADER_ROOM = 1_024;

/** Requests that may start or resume a harness process. */
const LONG: ReadonlySet<string> = new Set(['session/create', 'session/send', 'cluster/adopt', 'cluster/harnesses']);

export function workerGone(workerId: string, what: string, why: string): ReinsError {
  return new ReinsError(
    'process_exited',
    `Worker ${workerId} is gone (${why}) while serving ${what}; its sessions are marked lost, and the next send resumes them on another worker.`,
    { data: { worker: workerId, reason: 'worker_gone' } },
  );
}

export function isWorkerGone(error: unknown): boolean {
  return ReinsError.isInstance(error) && error.data?.reason === 'worker_gone';
}

export interface WorkerClientOptions {
  /** Deadline of a request that may start a harness (create, send, adopt) (ms, default 5 min). */
  longRequestTimeoutMs?: number;
  /** Deadline of every other request (ms, default 60 s). */
  requestTimeoutMs?: number;
}

export class WorkerClient {
  /** Requests waiting on a worker run (`<id>.<epoch>`), rejected when it is found gone. */
  private readonly waiting = new Map<string, Set<(error: ReinsError) => void>>();

  constructor(
    private readonly nats: NatsCluster,
    private readonly options: WorkerClientOptions = {},
  ) {}

  async request(worker: MemberRecord, method: WorkerMethod, params: unknown): Promise<unknown> {
    const run = `${worker.id}.${worker.epoch}`;
    const timeout = LONG.has(method)
      ? (this.options.longRequestTimeoutMs ?? 5 * 60_000)
      : (this.options.requestTimeoutMs ?? 60_000);
    let reject: (error: ReinsError) => void = () => {};
    const gone = new Promise<never>((_, fail) => {
      reject = fail;
    });
    const waiters = this.waiting.get(run) ?? new Set();
    waiters.add(reject);
    this.waiting.set(run, waiters);
    try {
      const answer = await Promise.race([
        this.send(workerRpcSubject(worker.id), encodeJson({ method, params }), timeout),
        gone,
      ]);
      const reply = decodeJson(answer.data, WorkerReplySchema);
      if (!reply) {
        throw new ReinsError('protocol_error', `Worker ${worker.id} answered ${method} with something unreadable.`);
      }
      const error = replyError(reply);
      if (error) throw error;
      return 'result' in reply ? reply.result : undefined;
    } catch (error) {
      if (ReinsError.isInstance(error)) throw error;
      if (isNoResponders(error)) throw workerGone(worker.id, method, 'it does not answer (no responders)');
      if (isTimeout(error)) {
        throw new ReinsError('timeout', `Worker ${worker.id} did not answer ${method} within ${timeout / 1000} s.`, {
          data: { worker: worker.id },
        });
      }
      throw ReinsError.from(error, 'process_exited');
    } finally {
      waiters.delete(reject);
      if (waiters.size === 0) this.waiting.delete(run);
    }
  }

  /** One message, or parts one after another (each acknowledged) whose last answers the request. */
  private async send(subject: string, data: Uint8Array, timeout: number): Promise<Msg> {
    const maxBytes = Math.max(4_096, (this.nats.nc.info?.max_payload ?? 1_048_576) - HEADER_ROOM);
    if (data.length <= maxBytes) return this.nats.nc.request(subject, data, { timeout });
    if (data.length > MAX_REQUEST_BYTES) {
      throw new ReinsError(
        'invalid_input',
        `The request is ${data.length} bytes; the cluster carries at most ${MAX_REQUEST_BYTES} bytes per request. Send smaller images or fewer at a time.`,
        { data: { bytes: data.length, limit: MAX_REQUEST_BYTES } },
      );
    }
    const upload = randomUUID();
    const parts = splitRequest(data, maxBytes);
    let answer: Msg | undefined;
    for (const [at, part] of parts.entries()) {
      const meta = headers();
      meta.set(UPLOAD_HEADER, upload);
      meta.set(PART_HEADER, `${at + 1}/${parts.length}`);
      answer = await this.nats.nc.request(subject, part, { timeout, headers: meta });
      if (at + 1 < parts.length) {
        const ack = decodeJson(answer.data, WorkerReplySchema);
        const error = ack && replyError(ack);
        if (!ack || error) return answer; // the worker refused a part: its answer is the reply
      }
    }
    return answer as Msg;
  }

  /** Fails every request waiting on a worker run that `isGone`. */
  failRequestsToGone(isGone: (workerId: string, epoch: string) => boolean): void {
    for (const [run, waiters] of this.waiting) {
      const [workerId = '', epoch = ''] = run.split('.');
      if (!isGone(workerId, epoch)) continue;
      for (const reject of waiters) reject(workerGone(workerId, 'the request', 'its heartbeats stopped'));
    }
  }

  /** Every worker's harness/list, merged: for each harness the best listing (ready, then found). */
  async harnesses(workers: readonly MemberRecord[]): Promise<HarnessListing[]> {
    const answers = await Promise.allSettled(
      workers.map((worker) => this.request(worker, 'cluster/harnesses', {}) as Promise<HarnessListing[]>),
    );
    const merged = new Map<string, HarnessListing>();
    const rank = (listing: HarnessListing) => (listing.health.status === 'ready' ? 2 : listing.discovery.found ? 1 : 0);
    for (const answer of answers) {
      if (answer.status !== 'fulfilled') continue;
      for (const listing of answer.value) {
        const kept = merged.get(listing.id);
        if (!kept || rank(listing) > rank(kept)) merged.set(listing.id, listing);
      }
    }
    return [...merged.values()];
  }
}
