// A daemon session's stored record, kept in memory and written through to the store on every
// change (each write queued in order): settings, native id, title, model, effort, generation, the
// turn in progress, open or closed. A write the store refuses (a full disk) is logged and its fields
// are written again, at their newest values, with the next write or catchUp(), so the stored record
// catches up once the disk has room (docs/architecture/daemon.md, "A store that cannot write").
// Also what the record looks like to clients (session/list, in version 2 and in version 1).

import { EffortSchema, type ReinsEvent } from '@reins/core';
import type { HostedSessionStatus, SessionListing, V1SessionListing } from '@reins/protocol';
import { v1Status } from '@reins/protocol';
import type { Logger } from './logger.js';
import type { DaemonStore, OpenTurn, SessionPatch, StoredSession } from './store/store.js';
import { storeUnavailableError } from './store/unavailable.js';

export class SessionRecord {
  private forgotten = false;
  /** Fields whose newest value the store has not taken (a write of them was refused). */
  private readonly unsaved = new Set<keyof SessionPatch>();

  constructor(
    private readonly data: StoredSession,
    private readonly store: DaemonStore,
    private readonly log: Logger,
  ) {}

  /** The record as it is now (read-only to callers: change it through the methods). */
  get current(): Readonly<StoredSession> {
    return this.data;
  }

  /** Applies `patch` here and in the store. */
  update(patch: SessionPatch): void {
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete (this.data as unknown as Record<string, unknown>)[key];
      else if (value !== undefined) (this.data as unknown as Record<string, unknown>)[key] = value;
    }
    if (this.forgotten) return;
    this.write(patch).catch((error: unknown) =>
      this.log.error('could not store a session change; it is written again with the next one', {
        sessionId: this.data.sessionId,
        error: (error as Error).message,
      }),
    );
  }

  /** Whether a change is still to be written (the store refused it). */
  get behind(): boolean {
    return this.unsaved.size > 0;
  }

  /** Writes what the store refused before; rejects with store_unavailable while it still cannot. */
  async catchUp(): Promise<void> {
    if (this.forgotten || this.unsaved.size === 0) return;
    await this.write({}).catch((error: unknown) => {
      throw storeUnavailableError(this.store.location, error);
    });
  }

  /** `patch` plus every refused field at its newest value; a refused write's fields stay unsaved. */
  private async write(patch: SessionPatch): Promise<void> {
    const full: Record<string, unknown> = {};
    const current = this.data as unknown as Record<string, unknown>;
    for (const key of this.unsaved) full[key] = current[key] ?? null;
    Object.assign(full, patch);
    const keys = Object.keys(full) as Array<keyof SessionPatch>;
    try {
      await this.store.updateSession(this.data.sessionId, full as SessionPatch);
    } catch (error) {
      for (const key of keys) this.unsaved.add(key);
      throw error;
    }
    for (const key of keys) this.unsaved.delete(key);
  }

  /** What a session.updated changes (native id, title, model, effort); true when anything did. */
  noteUpdate(event: Extract<ReinsEvent, { type: 'session.updated' }>): boolean {
    const patch: SessionPatch = {};
    if (event.nativeSessionId !== undefined && event.nativeSessionId !== this.data.nativeSessionId) {
      patch.nativeSessionId = event.nativeSessionId;
    }
    if (event.title !== undefined && event.title !== this.data.title) patch.title = event.title;
    if (event.model !== undefined && event.model !== this.data.model) patch.model = event.model;
    const effort = EffortSchema.safeParse(event.effort);
    if (effort.success && effort.data !== this.data.effort) patch.effort = effort.data;
    if (Object.keys(patch).length === 0) return false;
    this.update(patch);
    return true;
  }

  /** Moves updatedAt to an event's time (the store does the same when it appends the event). */
  touched(at: number): void {
    this.data.updatedAt = Math.max(this.data.updatedAt, at);
  }

  openTurn(turn: OpenTurn | null): void {
    if (turn === null && this.data.openTurn === undefined) return;
    this.update({ openTurn: turn });
  }

  /** No more writes: the session and its record are being deleted. */
  forget(): void {
    this.forgotten = true;
  }

  listing(status: HostedSessionStatus, lastSeq: number): SessionListing {
    const r = this.data;
    return {
      sessionId: r.sessionId,
      harness: r.harness,
      ...(r.nativeSessionId !== undefined ? { nativeSessionId: r.nativeSessionId } : {}),
      cwd: r.cwd,
      ...(r.title !== undefined ? { title: r.title } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      ...(r.effort !== undefined ? { effort: r.effort } : {}),
      ...(r.spec.posture !== undefined ? { posture: r.spec.posture } : {}),
      status,
      lastSeq,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  v1Listing(status: HostedSessionStatus, lastSeq: number): V1SessionListing {
    const r = this.data;
    return {
      sessionId: r.sessionId,
      harness: r.harness,
      ...(r.nativeSessionId !== undefined ? { nativeSessionId: r.nativeSessionId } : {}),
      status: v1Status(status),
      lastSeq,
      createdAt: r.createdAt,
    };
  }
}
