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

export function reenvelope(
  event: ReinsEvent,
  fields: { seq: number; sessionId: string; generation: number },
): ReinsEvent {
  const { seq, sessionId, generation } = fields;
  const out = { ...event, seq, sessionId } as ReinsEvent & Record<string, unknown>;
  if (event.native !== undefined) relinkNative(out, event, `${sessionId}\u0000${generation}`);
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

/**
 * Per adapter stream (daemon session and generation), the last event that carried a native frame
 * whole: its adapter seq and logged seq. A reference always names the last such event of its stream
 * (core keeps one frame per stream), so one entry per stream is enough; the oldest streams are
 * forgotten past MAX_STREAMS.
 */
const carriers = new Map<string, { adapterSeq: number; loggedSeq: number }>();
const MAX_STREAMS = 10_000;

function relinkNative(out: ReinsEvent, event: ReinsEvent, stream: string): void {
  const native = event.native as NonNullable<ReinsEvent['native']>;
  const ref = nativeFrameRef(native.frame);
  if (ref === undefined) {
    if (native.frame === null || typeof native.frame !== 'object') return;
    if ((native.frame as { reinsTruncated?: unknown }).reinsTruncated === true) return;
    carriers.delete(stream);
    carriers.set(stream, { adapterSeq: event.seq, loggedSeq: out.seq });
    if (carriers.size > MAX_STREAMS) carriers.delete(carriers.keys().next().value as string);
    return;
  }
  const carrier = carriers.get(stream);
  // Unknown carrier (never expected): the same distance back as in the adapter's stream.
  const loggedSeq = carrier?.adapterSeq === ref ? carrier.loggedSeq : out.seq - (event.seq - ref);
  out.native = { ...native, frame: { reinsFrameRef: loggedSeq } };
}
