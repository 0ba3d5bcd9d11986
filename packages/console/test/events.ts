// Builds envelope-complete events for the console's unit tests (src/model/*.test.ts): each call gets the next seq.
import type { EventPayload, ReinsEvent } from '@reins/core';

export function eventStream(sessionId = 's1', harness = 'codex') {
  let seq = 0;
  return (payload: EventPayload, envelope: { turnId?: string | null; parentItemId?: string } = {}): ReinsEvent =>
    ({
      ...payload,
      seq: ++seq,
      harness,
      sessionId,
      turnId: envelope.turnId === undefined ? null : envelope.turnId,
      at: 1_000 + seq,
      ...(envelope.parentItemId ? { parentItemId: envelope.parentItemId } : {}),
    }) as ReinsEvent;
}
