// Where the Pi translation puts what a frame makes: a payload sink the caller provides, so that a frame's
// events go out in order without an array per frame (the bench's translate figure, bench/README.md), and
// the rule that no item is announced twice, applied as items go out (emitItem).
import type { EventPayload, PassthroughReason, PayloadOf } from '@reins/core';
import type { PiTranslateState } from './state.js';

/** Receives a frame's payloads in order. */
export interface PayloadSink {
  emit(payload: EventPayload): void;
}

/** A sink that keeps every payload (translatePiFrame's list). */
export class PayloadList implements PayloadSink {
  readonly payloads: EventPayload[] = [];

  emit(payload: EventPayload): void {
    this.payloads.push(payload);
  }
}

export const passthrough = (frame: unknown, reason?: PassthroughReason): EventPayload =>
  reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame };

/** At most this many item ids are remembered for de-duplication. */
const REMEMBERED_ITEMS = 10_000;

/**
 * An item's start or completion into `sink`, unless that item was announced so already: then `frame` as a
 * duplicate passthrough. Only item.started and item.completed go through here (the rest: sink.emit).
 */
export function emitItem(
  state: PiTranslateState,
  sink: PayloadSink,
  frame: unknown,
  payload: PayloadOf<'item.started'> | PayloadOf<'item.completed'>,
): void {
  state.seen ??= new Map();
  const seen = state.seen;
  const id = payload.item.id;
  const before = seen.get(id);
  if (before === 'completed' || (before === 'started' && payload.type === 'item.started')) {
    sink.emit(passthrough(frame, 'duplicate'));
    return;
  }
  // Re-inserted so that the oldest announcement is forgotten first; a new id needs no delete.
  if (before !== undefined) seen.delete(id);
  seen.set(id, payload.type === 'item.started' ? 'started' : 'completed');
  if (seen.size > REMEMBERED_ITEMS) {
    const oldest = seen.keys().next().value;
    if (oldest !== undefined) seen.delete(oldest);
  }
  sink.emit(payload);
}
