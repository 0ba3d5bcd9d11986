// Events for a connection granted `omitNative` (docs/architecture/daemon.md, "Protocol"): the same
// event without its `native` field, which is on average about half of an event's bytes and which a
// chat UI or a bot never reads. The store keeps every frame; only what this connection is sent
// changes. A live event goes to every subscriber in one synchronous loop, so its variant is made
// once (remembered beside the event while it lives) and shared by every connection that omits. A
// replayed one (a text from the tail or the store) is parsed for this page only: the tail keeps
// neither its object nor its variant, so its memory stays what its texts weigh. Pure: no socket here.
import type { ReinsEvent } from '@reins/core';
import type { PublishedEvent } from './session-log.js';

const variants = new WeakMap<PublishedEvent, PublishedEvent>();

/** `published` as a connection that omits native frames is sent it: the same seq, no `native`. */
export function withoutNative(published: PublishedEvent): PublishedEvent {
  // No `"native":` in the text: the event has no native frame (escaped quotes inside strings
  // cannot match), and the text is sent as it is, unparsed.
  if (!published.json.includes('"native":')) return published;
  const known = variants.get(published);
  if (known !== undefined) return known;
  // A live event carries its object; a stored one (session-log.ts, StoredEvent) parses on demand.
  const live = Object.hasOwn(published, 'event');
  const event = live ? published.event : (JSON.parse(published.json) as ReinsEvent);
  if (event.native === undefined) return published;
  const { native: _omitted, ...rest } = event;
  const variant: PublishedEvent = { seq: published.seq, event: rest as ReinsEvent, json: JSON.stringify(rest) };
  if (live) variants.set(published, variant);
  return variant;
}
