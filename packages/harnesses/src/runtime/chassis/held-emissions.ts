// A frame's events, held until its translation returns (SessionChassis.translateInto).
//
// What a partial emission means: nothing. A translation that throws part-way through a frame has already
// put some of that frame's events into its sink; those are discarded with the rest, and the frame becomes
// one `untranslatable` passthrough, exactly as when translations returned lists (docs/architecture/
// contract.md, principle 8). So the sink a translation writes into is this buffer, not the stream: it is
// reused frame after frame (three parallel arrays that keep their capacity), so that holding back costs
// no array or wrapper object per frame (issue 30, step 3). What the translation changed in its own state
// before it threw stays changed, as before.
import type { EmitMeta, EventPayload, NativeFrame } from '@reins/core';

/** Where a frame's translation puts its events (the stream-json and Pi sinks accept it as it is). */
export interface FrameSink {
  emit(payload: EventPayload, parentItemId?: string, background?: boolean): void;
}

/** A frame's time and native frame: what every event it makes carries, and the passthrough if it throws. */
export interface FrameMeta extends EmitMeta {
  native: NativeFrame;
  at: number;
}

/**
 * Receives a committed frame's events in order: the payload, its subagent lane (undefined for the main
 * thread), whether it is background work emitted outside any turn, and the frame's meta.
 */
export type CommitEmission = (
  payload: EventPayload,
  parentItemId: string | undefined,
  background: boolean,
  meta: FrameMeta,
) => void;

export class HeldEmissions implements FrameSink {
  private readonly payloads: Array<EventPayload | undefined> = [];
  private readonly lanes: Array<string | undefined> = [];
  private readonly background: boolean[] = [];
  private count = 0;

  emit(payload: EventPayload, parentItemId?: string, background = false): void {
    const index = this.count++;
    this.payloads[index] = payload;
    this.lanes[index] = parentItemId;
    this.background[index] = background;
  }

  /**
   * Forgets what is held. The slots are emptied rather than the arrays shortened (a shortened array may
   * give up its storage), and emptied so that an idle session keeps no frame's payloads alive.
   */
  clear(): void {
    for (let index = 0; index < this.count; index++) {
      this.payloads[index] = undefined;
      this.lanes[index] = undefined;
    }
    this.count = 0;
  }

  /** Hands every held event to `commit`, in order, then forgets them. */
  commit(commit: CommitEmission, meta: FrameMeta): void {
    const count = this.count;
    try {
      for (let index = 0; index < count; index++)
        commit(this.payloads[index] as EventPayload, this.lanes[index], this.background[index] === true, meta);
    } finally {
      this.clear();
    }
  }
}
