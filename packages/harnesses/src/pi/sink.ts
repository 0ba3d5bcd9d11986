// Where the Pi translation puts what a frame makes: a payload sink the caller provides, so that a frame's
// events go out in order without an array per frame (the bench's translate figure, bench/README.md), and
// the rule that no item is announced twice, applied as they go out.
import type { EventPayload, PassthroughReason } from '@reins/core';
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
 * Passes one frame's payloads on, a start or completion of an item already announced replaced by the
 * frame as a duplicate passthrough. One is reused from frame to frame (`forFrame`, `done`).
 */
export class ItemsOnce implements PayloadSink {
  private state: PiTranslateState | undefined = undefined;
  private frame: unknown = undefined;
  private target: PayloadSink | undefined = undefined;

  forFrame(state: PiTranslateState, frame: unknown, target: PayloadSink): this {
    this.state = state;
    this.frame = frame;
    this.target = target;
    return this;
  }

  done(): void {
    this.state = undefined;
    this.frame = undefined;
    this.target = undefined;
  }

  emit(payload: EventPayload): void {
    const target = this.target as PayloadSink;
    if (payload.type !== 'item.started' && payload.type !== 'item.completed') {
      target.emit(payload);
      return;
    }
    const state = this.state as PiTranslateState;
    state.seen ??= new Map();
    const seen = state.seen;
    const before = seen.get(payload.item.id);
    if (before === 'completed' || (before === 'started' && payload.type === 'item.started')) {
      target.emit(passthrough(this.frame, 'duplicate'));
      return;
    }
    seen.delete(payload.item.id);
    seen.set(payload.item.id, payload.type === 'item.started' ? 'started' : 'completed');
    if (seen.size > REMEMBERED_ITEMS) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
    target.emit(payload);
  }
}
