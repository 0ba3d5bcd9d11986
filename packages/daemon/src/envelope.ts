// One daemon session's log spans every harness process it had (a resume after a restart or an
// eviction is a new process, a new "generation"), but adapters number turns (and often items) per
// process: the second process starts at turn_1 again. The daemon re-envelopes each event into the
// session: its own seq and session id, and the turn and item ids of generation g > 0 prefixed
// `r<g>.`, so ids stay unique across the whole log. Generation 0 keeps the adapter's ids as they are.
// A native frame reference (`{ reinsFrameRef: seq }`, docs/architecture/contract.md, "Events") names
// the adapter's seq of the event that carries the frame: it is re-pointed at that event's logged seq.
import { nativeFrameRef, type ReinsEvent } from '@reins/core';

export function generationId(id: string, generation: number): string {
  return generation === 0 ? id : `r${generation}.${id}`;
}

/**
 * The last event of one adapter stream (one incarnation: a daemon session's generation) that carried
 * a native frame whole: its adapter seq and logged seq. A reference always names the last such event
 * of its stream (core keeps one frame per stream), so one per stream is enough.
 */
export interface NativeCarrier {
  adapterSeq: number;
  loggedSeq: number;
}

export function newNativeCarrier(): NativeCarrier {
  return { adapterSeq: 0, loggedSeq: 0 };
}

export function reenvelope(
  event: ReinsEvent,
  fields: { seq: number; sessionId: string; generation: number; carrier: NativeCarrier },
): ReinsEvent {
  const { seq, sessionId, generation } = fields;
  const out = { ...event, seq, sessionId } as ReinsEvent & Record<string, unknown>;
  if (event.native !== undefined) relinkNative(out, event, fields.carrier);
  if (generation === 0) return out;
  const id = (value: string) => generationId(value, generation);
  if (out.turnId !== null) out.turnId = id(out.turnId);
  if (out.parentItemId !== undefined) out.parentItemId = id(out.parentItemId);
  switch (out.type) {
    case 'item.started':
    case 'item.completed':
      out.item = { ...out.item, id: id(out.item.id) };
      break;
    case 'item.delta':
      out.itemId = id(out.itemId);
      break;
    case 'permission.requested':
      if (out.itemId !== undefined) out.itemId = id(out.itemId);
      break;
    default:
      break;
  }
  return out;
}

function relinkNative(out: ReinsEvent, event: ReinsEvent, carrier: NativeCarrier): void {
  const native = event.native as NonNullable<ReinsEvent['native']>;
  const ref = nativeFrameRef(native.frame);
  if (ref === undefined) {
    if (native.frame === null || typeof native.frame !== 'object') return;
    if ((native.frame as { reinsTruncated?: unknown }).reinsTruncated === true) return;
    carrier.adapterSeq = event.seq;
    carrier.loggedSeq = out.seq;
    return;
  }
  // Unknown carrier (never expected): the same distance back as in the adapter's stream.
  const loggedSeq = carrier.adapterSeq === ref ? carrier.loggedSeq : out.seq - (event.seq - ref);
  out.native = { ...native, frame: { reinsFrameRef: loggedSeq } };
}
