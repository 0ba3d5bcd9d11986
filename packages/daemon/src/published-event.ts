// An event as the daemon stores and sends it (its object and its JSON text, made once), and the
// same event for a connection granted `omitNative` (docs/architecture/daemon.md, "Protocol"): the same
// event without its `native` field, which is on average about half of an event's bytes and which a
// chat UI or a bot never reads. The store keeps every frame; only what this connection is sent
// changes. A live event goes to every subscriber in one synchronous loop: its text without the
// native frame is made when the first connection that omits asks, once, and kept with the event
// while it lives (nothing is made when no connection omits). Any other (a text read back from the
// tail or the store, a cluster gateway's mirrored event) is parsed once and its variant kept beside
// it while it lives. Pure: no socket here.
import type { ReinsEvent } from '@reins/core';

/** An event as it is stored and sent: the object and its JSON text. */
export interface PublishedEvent {
  seq: number;
  event: ReinsEvent;
  json: string;
}

/** An event as the log publishes it: its object, its JSON (made once), its form without `native` when asked. */
export class LiveEvent implements PublishedEvent {
  readonly seq: number;
  readonly json: string;
  private bare: PublishedEvent | undefined;

  constructor(readonly event: ReinsEvent) {
    this.seq = event.seq;
    this.json = JSON.stringify(event);
  }

  withoutNative(): PublishedEvent {
    if (this.bare !== undefined) return this.bare;
    const event = this.event;
    const native = event.native;
    if (native === undefined) {
      this.bare = this;
      return this;
    }
    // Hidden from the serialiser for this synchronous step rather than copied: the same fields in
    // the same order, no copy of the event.
    (event as { native?: unknown }).native = undefined;
    try {
      this.bare = new TextOnly(this.seq, JSON.stringify(event));
    } finally {
      event.native = native;
    }
    return this.bare;
  }
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

/**
 * The variants of other events handed to several connections (a cluster gateway's mirror publishes
 * its own objects; the tail's texts are shared by replays): made once each, kept while the event is.
 */
const variants = new WeakMap<PublishedEvent, PublishedEvent>();

/** `published` as a connection that omits native frames is sent it: the same seq, no `native`. */
export function withoutNative(published: PublishedEvent): PublishedEvent {
  if (published instanceof LiveEvent) return published.withoutNative();
  // No `"native":` in the text: the event has no native frame (escaped quotes inside strings
  // cannot match), and the text is sent as it is, unparsed.
  if (!published.json.includes('"native":')) return published;
  const known = variants.get(published);
  if (known !== undefined) return known;
  const event = JSON.parse(published.json) as ReinsEvent;
  if (event.native === undefined) return published;
  const { native: _omitted, ...rest } = event;
  const variant = new TextOnly(published.seq, JSON.stringify(rest));
  variants.set(published, variant);
  return variant;
}
