// A daemon session's stored record, kept in memory and written through to the store on every
// change (each write queued in order; a failure is logged, the session goes on): settings, native
// id, title, model, effort, generation, the turn in progress, open or closed. Also what the record
// looks like to clients (session/list, in version 2 and in version 1).

import { EffortSchema, type ReinsEvent } from '@reins/core';
import type { HostedSessionStatus, SessionListing, V1SessionListing } from '@reins/protocol';
import { v1Status } from '@reins/protocol';
import type { Logger } from './logger.js';
import type { DaemonStore, OpenTurn, SessionPatch, StoredSession } from './store/store.js';

export class SessionRecord {
  private forgotten = false;

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
    this.store.updateSession(this.data.sessionId, patch).catch((error: unknown) =>
      this.log.error('could not store a session change', {
        sessionId: this.data.sessionId,
        error: (error as Error).message,
      }),
    );
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
