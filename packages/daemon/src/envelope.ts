// One daemon session's log spans every harness process it had (a resume after a restart or an
// eviction is a new process, a new "generation"), but adapters number turns (and often items) per
// process: the second process starts at turn_1 again. The daemon re-envelopes each event into the
// session: its own seq and session id, and the turn and item ids of generation g > 0 prefixed
// `r<g>.`, so ids stay unique across the whole log. Generation 0 keeps the adapter's ids as they are.
import type { ReinsEvent } from '@reins/core';

export function generationId(id: string, generation: number): string {
  return generation === 0 ? id : `r${generation}.${id}`;
}

export function reenvelope(
  event: ReinsEvent,
  fields: { seq: number; sessionId: string; generation: number },
): ReinsEvent {
  const { seq, sessionId, generation } = fields;
  const out = { ...event, seq, sessionId } as ReinsEvent & Record<string, unknown>;
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
