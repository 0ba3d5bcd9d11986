// Events too big for one frame (docs/architecture/daemon.md, "Protocol"): to a client granted
// `eventParts`, the event's JSON cut into bounded session/eventPart frames that @reins/client joins
// again; to any other client, one session/event frame of the event with its longest strings cut
// and marked, so no connection is ever cut for an event's size. Pure: no socket here.
import type { ReinsEvent } from '@reins/core';
import { SESSION_EVENT, SESSION_EVENT_PART } from '@reins/protocol';
import type { PublishedEvent } from './session-log.js';

/**
 * Event JSON longer than this (in UTF-16 code units, about bytes for the ASCII JSON mostly is) goes
 * in parts of at most this much: a frame stays far below the 16 MiB a connection may have unsent.
 */
export const EVENT_PART_CHARS = 1024 * 1024;

/** Whether `published` is sent in parts (or shrunk) rather than in one session/event frame. */
export function isBigEvent(published: PublishedEvent, partChars = EVENT_PART_CHARS): boolean {
  return published.json.length > partChars;
}

/** The session/eventPart frames that carry `published`, in order, as UTF-8 bytes. */
export function eventPartFrames(sessionId: string, published: PublishedEvent, partChars = EVENT_PART_CHARS): Buffer[] {
  const json = published.json;
  const slices: string[] = [];
  for (let start = 0; start < json.length; ) {
    let end = Math.min(json.length, start + partChars);
    // Never between the two halves of a surrogate pair: each part stays well-formed text.
    if (end < json.length && isHighSurrogate(json.charCodeAt(end - 1))) end--;
    slices.push(json.slice(start, end));
    start = end;
  }
  const head = `{"jsonrpc":"2.0","method":"${SESSION_EVENT_PART}","params":{"sessionId":${JSON.stringify(sessionId)},"seq":${published.seq}`;
  return slices.map((data, index) =>
    Buffer.from(`${head},"index":${index},"count":${slices.length},"data":${JSON.stringify(data)}}}`),
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Strings kept whole in a shrunk event; a longer one keeps its first SHRUNK_KEEP_CHARS. */
const SHRUNK_LONGEST = 64 * 1024;
const SHRUNK_KEEP_CHARS = 1024;

/**
 * The session/event frame of `published` for a client that takes no parts: every string longer
 * than 64 KiB cut to its first 1 KiB and a marker saying how long it was (a big inline image or
 * output); what is cut stays in the store, whole for a client that declares `eventParts`.
 */
export function shrunkEventFrame(sessionId: string, published: PublishedEvent): Buffer {
  const shrunk = shrinkStrings(published.event, 0) as ReinsEvent;
  return Buffer.from(
    `{"jsonrpc":"2.0","method":"${SESSION_EVENT}","params":{"sessionId":${JSON.stringify(sessionId)},"event":${JSON.stringify(shrunk)}}}`,
  );
}

/** A copy of `value` with long strings cut; depth is bounded by the guard (events nest 256 levels at most). */
function shrinkStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= SHRUNK_LONGEST) return value;
    return `${value.slice(0, SHRUNK_KEEP_CHARS)}… [reinsTruncated: ${value.length} characters in all; a client that declares eventParts at initialize gets them whole]`;
  }
  if (value === null || typeof value !== 'object' || depth > 300) return value;
  if (Array.isArray(value)) return value.map((item) => shrinkStrings(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = shrinkStrings(item, depth + 1);
  return out;
}
