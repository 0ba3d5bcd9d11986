// Where the stream-json translation puts what a frame makes: an emission sink the caller provides, so that
// a frame's events go out in order without an array or a wrapper object per frame (the bench's translate
// figure, bench/README.md). `EmissionList` collects them as Emission objects for callers that want a list
// (translateFrame, tests). Which lane is background work: tasks.ts (emitOnLane).
import type { EventPayload } from '@reins/core';

/** One thing to emit: the payload plus the subagent lane it belongs to. */
export interface Emission {
  payload: EventPayload;
  parentItemId?: string;
  /** Background work whose launching turn has ended (tasks.ts): emitted outside any turn. */
  background?: boolean;
}

/** Receives a frame's payloads in order. */
export interface EmissionSink {
  /**
   * One payload: on its subagent lane (`parentItemId`, undefined for the main thread); `background` when
   * it is background work whose launching turn has ended (tasks.ts): emitted outside any turn.
   */
  emit(payload: EventPayload, parentItemId: string | undefined, background: boolean): void;
}

/** A sink that keeps every emission, shaped as `Emission` objects. */
export class EmissionList implements EmissionSink {
  readonly emissions: Emission[] = [];

  emit(payload: EventPayload, parentItemId: string | undefined, background: boolean): void {
    const emission: Emission = parentItemId === undefined ? { payload } : { payload, parentItemId };
    if (background) emission.background = true;
    this.emissions.push(emission);
  }
}
