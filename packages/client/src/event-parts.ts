// Joins the session/eventPart notifications of one connection back into events (the daemon splits
// an event too big for one frame; docs/architecture/daemon.md, "Protocol"). The parts of an event
// come in order with nothing of that session in between, so one event is pending per session; a
// part that does not follow on drops what was pending, and the session then sees the gap. Pure.
import type { ReinsEvent } from '@reins/core';
import { type SessionEventPartParams, SessionEventPartParamsSchema } from '@reins/protocol';

interface Pending {
  seq: number;
  count: number;
  parts: string[];
}

export class EventPartJoiner {
  private readonly pending = new Map<string, Pending>();

  /**
   * Takes one part's params: the event once its last part came, else undefined (more to come, or
   * the part was malformed or out of order and what was pending is dropped).
   */
  add(params: unknown): { sessionId: string; event: ReinsEvent } | undefined {
    const parsed = SessionEventPartParamsSchema.safeParse(params);
    if (!parsed.success) return undefined;
    const part: SessionEventPartParams = parsed.data;
    let pending = this.pending.get(part.sessionId);
    if (part.index === 0) {
      pending = { seq: part.seq, count: part.count, parts: [] };
      this.pending.set(part.sessionId, pending);
    }
    if (!pending || pending.seq !== part.seq || pending.count !== part.count || pending.parts.length !== part.index) {
      this.pending.delete(part.sessionId);
      return undefined;
    }
    pending.parts.push(part.data);
    if (pending.parts.length < pending.count) return undefined;
    this.pending.delete(part.sessionId);
    return this.join(part.sessionId, pending);
  }

  /** Forgets a session's pending parts (it was unsubscribed or closed). */
  forget(sessionId: string): void {
    this.pending.delete(sessionId);
  }

  private join(sessionId: string, pending: Pending): { sessionId: string; event: ReinsEvent } | undefined {
    let event: unknown;
    try {
      event = JSON.parse(pending.parts.join(''));
    } catch {
      return undefined;
    }
    const envelope = event as Partial<ReinsEvent> | null;
    if (typeof envelope !== 'object' || envelope === null || envelope.seq !== pending.seq) return undefined;
    if (typeof envelope.type !== 'string') return undefined;
    return { sessionId, event: event as ReinsEvent };
  }
}
