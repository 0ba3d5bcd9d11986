// A DaemonStore that keeps everything in this process's memory: nothing survives a restart. It is
// the reference behaviour of the interface (the store tests run against it and SQLite alike) and
// the "without a store" baseline of the bench. Writes resolve in the next microtask.
import { ReinsError, type ReinsEvent } from '@reins/core';
import type { DaemonStore, LoadedSession, ProcessGroupRecord, SessionPatch, StoredSession } from './store.js';

export class MemoryStore implements DaemonStore {
  readonly location = 'memory';
  private readonly sessions = new Map<string, StoredSession>();
  private readonly events = new Map<string, ReinsEvent[]>();
  private readonly groups = new Map<string, ProcessGroupRecord>();

  async loadSessions(): Promise<LoadedSession[]> {
    return [...this.sessions.values()].map((session) => ({
      ...structuredClone(session),
      lastSeq: this.events.get(session.sessionId)?.at(-1)?.seq ?? 0,
    }));
  }

  async putSession(session: StoredSession): Promise<void> {
    this.sessions.set(session.sessionId, structuredClone(session));
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete (session as unknown as Record<string, unknown>)[key];
      else if (value !== undefined) (session as unknown as Record<string, unknown>)[key] = structuredClone(value);
    }
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
    this.events.delete(sessionId);
  }

  async appendEvents(sessionId: string, events: readonly ReinsEvent[]): Promise<void> {
    const log = this.events.get(sessionId) ?? [];
    // A write is whole or nothing, as one SQLite transaction is: every seq is checked before any is kept.
    let last = log.at(-1)?.seq ?? 0;
    for (const event of events) {
      if (event.seq !== last + 1) {
        throw new ReinsError(
          'protocol_error',
          `Event seq ${event.seq} does not follow ${last} in session ${sessionId}.`,
        );
      }
      last = event.seq;
    }
    for (const event of events) log.push(event);
    this.events.set(sessionId, log);
    const session = this.sessions.get(sessionId);
    const newest = events.at(-1);
    if (session && newest) session.updatedAt = Math.max(session.updatedAt, newest.at);
  }

  async readEvents(sessionId: string, afterSeq: number, limit: number): Promise<ReinsEvent[]> {
    const log = this.events.get(sessionId) ?? [];
    // seq n sits at index n - 1 (a log starts at 1 with no gaps).
    return log.slice(afterSeq, afterSeq + limit);
  }

  async recordProcessGroup(group: ProcessGroupRecord): Promise<void> {
    this.groups.set(group.id, { ...group });
  }

  async endProcessGroup(id: string, endedAt: number): Promise<void> {
    const group = this.groups.get(id);
    if (group && group.endedAt === undefined) group.endedAt = endedAt;
  }

  async openProcessGroups(): Promise<ProcessGroupRecord[]> {
    return [...this.groups.values()].filter((group) => group.endedAt === undefined).map((group) => ({ ...group }));
  }

  async close(): Promise<void> {}
}
