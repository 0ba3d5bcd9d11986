// Events for a connection granted `omitNative` (docs/architecture/daemon.md, "Protocol"): the same
// event without its `native` field, which is on average about half of an event's bytes and which a
// chat UI or a bot never reads. The store keeps every frame; only what this connection is sent
// changes. A live event is serialised once, in two pieces, so that its text without the native frame
// costs nothing more (publishedEvent); a replayed one (a text from the tail or the store) is parsed for
// the page that carries it: the tail keeps neither its object nor its variant, so its memory stays
// what its texts weigh. Pure: no socket here.
import type { ReinsEvent } from '@reins/core';
import type { PublishedEvent } from './session-log.js';

/** A live event as the log stores and sends it: its text, and its text without the native frame. */
interface LiveEvent extends PublishedEvent {
  bare?: PublishedEvent;
}

/**
 * `event` with its JSON, made once. The event stream puts `native` last (core's event-stream.ts,
 * stamp), so the whole text is the bare one with the native frame appended: the bytes
 * JSON.stringify(event) gives, and the bare form for free. (Were `native` not last, the text is the
 * same event with `native` moved last.) The event is ours for this synchronous step: `native` is
 * hidden from the serialiser by setting it undefined, not by copying the event.
 */
export function publishedEvent(event: ReinsEvent): PublishedEvent {
  const native = event.native;
  if (native === undefined) return { seq: event.seq, event, json: JSON.stringify(event) };
  (event as { native?: unknown }).native = undefined;
  let bareJson: string;
  try {
    bareJson = JSON.stringify(event);
  } finally {
    event.native = native;
  }
  const json = `${bareJson.slice(0, -1)},"native":${JSON.stringify(native)}}`;
  const live: LiveEvent = { seq: event.seq, event, json, bare: new TextOnly(event.seq, bareJson) };
  return live;
}

/** An event known by its text: its object only when someone asks (a big event shrunk for a client). */
class TextOnly implements PublishedEvent {
  constructor(
    readonly seq: number,
    readonly json: string,
  ) {}

  get event(): ReinsEvent {
    return JSON.parse(this.json) as ReinsEvent;
  }
}

/** `published` as a connection that omits native frames is sent it: the same seq, no `native`. */
export function withoutNative(published: PublishedEvent): PublishedEvent {
  const bare = (published as LiveEvent).bare;
  if (bare !== undefined) return bare;
  // No `"native":` in the text: the event has no native frame (escaped quotes inside strings
  // cannot match), and the text is sent as it is, unparsed.
  if (!published.json.includes('"native":')) return published;
  const event = JSON.parse(published.json) as ReinsEvent;
  if (event.native === undefined) return published;
  const { native: _omitted, ...rest } = event;
  return { seq: published.seq, event: rest as ReinsEvent, json: JSON.stringify(rest) };
}
