// The session/events frames of a connection granted `eventBatches` (docs/architecture/daemon.md,
// "Protocol"): consecutive events of one session, each exactly as session/event carries it (the
// JSON the log made once), cut into frames bounded by count and bytes. One event larger than the
// byte bound goes alone in its frame; every frame stays far below the 16 MiB a connection may have
// unsent (`maxBufferedBytes`), so the slow-consumer rule judges batches as it judges single events.
// Pure: no socket here.
import { SESSION_EVENTS } from '@reins/protocol';
import type { PublishedEvent } from './session-log.js';

export interface BatchLimits {
  /** Events in one frame at most. */
  maxEvents: number;
  /** UTF-8 bytes of event JSON in one frame at most (unless one event alone is larger). */
  maxBytes: number;
}

/**
 * 512 events is some 300 KB of a typical Codex log (Chromium takes such a frame in about the time
 * it takes one small one); 1 MiB keeps a page of large native frames to a few frames.
 */
export const BATCH_LIMITS: BatchLimits = { maxEvents: 512, maxBytes: 1024 * 1024 };

/** The session/events frames that carry `events` (consecutive, in order), as UTF-8 bytes. */
export function batchFrames(
  sessionId: string,
  events: readonly PublishedEvent[],
  limits: BatchLimits = BATCH_LIMITS,
): Buffer[] {
  const head = `{"jsonrpc":"2.0","method":"${SESSION_EVENTS}","params":{"sessionId":${JSON.stringify(sessionId)},"events":[`;
  const frames: Buffer[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (parts.length === 0) return;
    frames.push(Buffer.from(`${head}${parts.join(',')}]}}`));
    parts = [];
    bytes = 0;
  };
  for (const published of events) {
    const size = Buffer.byteLength(published.json);
    if (parts.length > 0 && (parts.length >= limits.maxEvents || bytes + size > limits.maxBytes)) flush();
    parts.push(published.json);
    bytes += size;
  }
  flush();
  return frames;
}
