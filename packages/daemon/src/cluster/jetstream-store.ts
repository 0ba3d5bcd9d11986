// The daemon's storage interface (store/store.ts) on NATS JetStream, for one worker: session
// records in the sessions bucket (with the worker and run that hold each, and its state for the
// gateways), events on the events stream (event-stream.ts), process groups in the processes
// bucket under the worker's id. A worker is the only writer of the sessions it holds: each record
// write expects the revision it wrote last, each event the one before it. When either finds
// someone else wrote (a gateway found this worker gone and marked the session lost, another
// worker adopted it), the session is fenced: nothing more is written for it here, and the worker
// lets it go (`fenced` hook). Writes resolve once NATS has them (file storage).

import { ReinsError, type ReinsEvent } from '@reins/core';
import type { HostedSessionStatus } from '@reins/protocol';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { DaemonStore, LoadedSession, ProcessGroupRecord, SessionPatch, StoredSession } from '../store/store.js';
import { type EventStream, eventAtOf, isFenced } from './event-stream.js';
import { processKey } from './layout.js';
import { casPut, isWrongLastSequence, type NatsCluster, type RetryOptions, retrying } from './nats.js';
import { type ClusterSessionRecord, decodeJson, decodeRecord, isAdoptable, notHereError } from './records.js';

interface Held {
  record: ClusterSessionRecord;
  /** KV revision of our last write (0: not written yet). */
  revision: number;
  /** Stream sequence and seq of its newest event (0: none). */
  streamSeq: number;
  lastSeq: number;
  fenced: boolean;
  deleted: boolean;
  dirty: boolean;
  writing: Promise<void> | undefined;
}

export interface JetStreamStoreHooks {
  /** Someone else wrote this session's record or log: stop its process and let it go. */
  fenced(sessionId: string): void;
}

const ProcessGroupSchema = z.object({
  id: z.string(),
  pgid: z.number().int(),
  pid: z.number().int(),
  startTicks: z.string().optional(),
  bootId: z.string().optional(),
  sessionId: z.string().optional(),
  harness: z.string().optional(),
  label: z.string(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
});

export class JetStreamStore implements DaemonStore {
  readonly location: string;
  private readonly held = new Map<string, Held>();
  private closed = false;

  constructor(
    private readonly nats: NatsCluster,
    private readonly events: EventStream,
    private readonly workerId: string,
    /** This run of the worker (a new one after it fenced itself). */
    private readonly epoch: () => string,
    private readonly log: Logger,
    private readonly hooks: JetStreamStoreHooks,
  ) {
    this.location = `${nats.location} (JetStream)`;
  }

  private retry(what: string): RetryOptions {
    return { stopped: () => this.closed, log: this.log, what };
  }

  // ---- sessions ---------------------------------------------------------------------------------

  /**
   * The sessions of this worker (any earlier run of it), claimed for this run: open ones come back
   * dormant, closed ones closed. A session another worker adopted meanwhile is not ours.
   */
  async loadSessions(): Promise<LoadedSession[]> {
    const loaded: LoadedSession[] = [];
    const keys = await retrying(() => this.nats.sessions.keys(), this.retry('list sessions'));
    for await (const key of keys) {
      const entry = await retrying(() => this.nats.sessions.get(key), this.retry('read a session'));
      const record = entry?.operation === 'PUT' ? decodeRecord(entry.value) : undefined;
      if (!entry || !record || record.worker !== this.workerId) continue;
      // Being marked lost by a gateway right now: it will be adopted on its next send instead.
      if (record.status === 'lost' && !isAdoptable(record, Date.now())) continue;
      const status: HostedSessionStatus = record.session.state === 'closed' ? 'closed' : 'dormant';
      const { lostAt: _lostAt, lostSettled: _settled, ...rest } = record;
      const claimed = await this.claim(key, { ...rest, epoch: this.epoch(), status }, entry.revision).catch(
        (error: unknown) => {
          if (!isWrongLastSequence(error)) throw error;
          return undefined; // adopted by someone else in this very moment
        },
      );
      if (claimed) loaded.push(claimed);
    }
    return loaded;
  }

  /** Takes a lost session on for this worker (the gateway chose it); not_here when another won. */
  async adopt(sessionId: string, check: (record: ClusterSessionRecord) => void): Promise<LoadedSession> {
    const entry = await retrying(() => this.nats.sessions.get(sessionId), this.retry('read a session'));
    const record = entry?.operation === 'PUT' ? decodeRecord(entry.value) : undefined;
    if (!entry || !record) {
      throw new ReinsError('invalid_input', `Unknown session "${sessionId}".`, { data: { sessionId } });
    }
    if (!isAdoptable(record, Date.now())) throw notHereError(sessionId, this.workerId);
    check(record);
    const { lostAt: _lostAt, lostSettled: _settled, ...rest } = record;
    try {
      return await this.claim(
        sessionId,
        { ...rest, worker: this.workerId, epoch: this.epoch(), status: 'dormant' },
        entry.revision,
      );
    } catch (error) {
      if (isWrongLastSequence(error)) throw notHereError(sessionId, this.workerId);
      throw error;
    }
  }

  private async claim(sessionId: string, record: ClusterSessionRecord, revision: number): Promise<LoadedSession> {
    const written = await casPut(
      this.nats.sessions,
      sessionId,
      JSON.stringify(record),
      revision,
      this.retry('claim a session'),
    );
    const newest = await this.events.tail(sessionId);
    const held: Held = {
      record,
      revision: written,
      streamSeq: newest?.streamSeq ?? 0,
      lastSeq: newest?.seq ?? 0,
      fenced: false,
      deleted: false,
      dirty: false,
      writing: undefined,
    };
    this.held.set(sessionId, held);
    const at = newest?.json ? eventAtOf(newest.json) : undefined;
    const session = { ...record.session };
    if (at !== undefined) session.updatedAt = Math.max(session.updatedAt, at);
    return { ...session, lastSeq: held.lastSeq };
  }

  async putSession(session: StoredSession): Promise<void> {
    const held: Held = {
      record: { session: structuredClone(session), worker: this.workerId, epoch: this.epoch(), status: 'starting' },
      revision: 0,
      streamSeq: 0,
      lastSeq: 0,
      fenced: false,
      deleted: false,
      dirty: false,
      writing: undefined,
    };
    this.held.set(session.sessionId, held);
    await this.write(held);
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held || held.deleted) return;
    const session = held.record.session as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete session[key];
      else if (value !== undefined) session[key] = structuredClone(value);
    }
    await this.write(held);
  }

  /** The session's state as the gateways show it (the worker calls this on every change), as of log seq `seq`. */
  setStatus(sessionId: string, status: HostedSessionStatus, seq: number): void {
    const held = this.held.get(sessionId);
    if (!held || held.deleted || held.fenced || held.record.status === status) return;
    held.record.status = status;
    held.record.statusSeq = seq;
    this.write(held).catch((error: unknown) =>
      this.log.error('could not store a session state', { sessionId, error: (error as Error).message }),
    );
  }

  /** Stops writing for a session another member now owns. */
  release(sessionId: string): void {
    const held = this.held.get(sessionId);
    if (held) held.fenced = true;
    this.held.delete(sessionId);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held) return;
    held.deleted = true;
    await held.writing?.catch(() => {});
    this.held.delete(sessionId);
    if (held.fenced) return;
    try {
      await retrying(
        () => this.nats.sessions.delete(sessionId, { previousSeq: held.revision }),
        this.retry('delete a session'),
      );
    } catch (error) {
      if (isWrongLastSequence(error)) return; // someone else holds it now: not ours to delete
      throw error;
    }
    await this.events.purge(sessionId);
  }

  /** Writes the record as it is now; calls made while a write is in flight share the next one. */
  private write(held: Held): Promise<void> {
    held.dirty = true;
    held.writing ??= this.drain(held).finally(() => {
      held.writing = undefined;
    });
    return held.writing;
  }

  private async drain(held: Held): Promise<void> {
    while (held.dirty && !held.fenced && !held.deleted) {
      held.dirty = false;
      const sessionId = held.record.session.sessionId;
      try {
        held.revision = await casPut(this.nats.sessions, sessionId, JSON.stringify(held.record), held.revision, {
          ...this.retry('write a session'),
          stopped: () => this.closed || held.fenced || held.deleted,
        });
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
        this.fence(sessionId, held, 'its record was changed by another member');
      }
    }
  }

  private fence(sessionId: string, held: Held, why: string): void {
    if (held.fenced) return;
    held.fenced = true;
    this.log.warn('session taken over by another cluster member: letting it go', { sessionId, why });
    this.hooks.fenced(sessionId);
  }

  // ---- events -----------------------------------------------------------------------------------

  async appendEvents(sessionId: string, events: readonly ReinsEvent[], serialized?: readonly string[]): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held || held.fenced || held.deleted) {
      throw new ReinsError('protocol_error', `This worker no longer holds session ${sessionId}.`, {
        data: { sessionId, reason: 'fenced' },
      });
    }
    const first = events[0];
    if (first && first.seq !== held.lastSeq + 1) {
      throw new ReinsError(
        'protocol_error',
        `Event seq ${first.seq} does not follow ${held.lastSeq} in session ${sessionId}.`,
      );
    }
    const entries = events.map((event, index) => ({
      seq: event.seq,
      json: serialized?.[index] ?? JSON.stringify(event),
    }));
    try {
      held.streamSeq = await this.events.append(sessionId, entries, held.streamSeq, () => held.fenced || this.closed);
    } catch (error) {
      if (isFenced(error)) this.fence(sessionId, held, 'its log was written by another member');
      throw error;
    }
    const newest = events.at(-1);
    if (newest) {
      held.lastSeq = newest.seq;
      held.record.session.updatedAt = Math.max(held.record.session.updatedAt, newest.at);
    }
  }

  async readEvents(sessionId: string, afterSeq: number, limit: number): Promise<ReinsEvent[]> {
    const page = await this.events.read(sessionId, afterSeq, limit);
    return page.map((event) => JSON.parse(event.json) as ReinsEvent);
  }

  // ---- process groups (per worker: reaped by the same worker at its next start) ------------------

  async recordProcessGroup(group: ProcessGroupRecord): Promise<void> {
    await retrying(
      () => this.nats.processes.put(processKey(this.workerId, group.id), JSON.stringify(group)),
      this.retry('record a process group'),
    );
  }

  async endProcessGroup(id: string): Promise<void> {
    await retrying(() => this.nats.processes.delete(processKey(this.workerId, id)), this.retry('end a process group'));
  }

  async openProcessGroups(): Promise<ProcessGroupRecord[]> {
    const out: ProcessGroupRecord[] = [];
    const keys = await retrying(
      () => this.nats.processes.keys(`${this.workerId}.>`),
      this.retry('list process groups'),
    );
    for await (const key of keys) {
      const entry = await retrying(() => this.nats.processes.get(key), this.retry('read a process group'));
      const group = entry?.operation === 'PUT' ? decodeJson(entry.value, ProcessGroupSchema) : undefined;
      if (group && group.endedAt === undefined) out.push(group as ProcessGroupRecord);
    }
    return out;
  }

  /** No more retries: writes that NATS has not taken by now fail (shutdown with NATS away). */
  stopRetrying(): void {
    this.closed = true;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.held.values()].map((held) => held.writing));
    this.closed = true;
  }
}
