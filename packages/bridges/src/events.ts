// The one check both bridges put every harness event through before anything acts on it: the Reins
// event schema. An event that fails it is reported (a fault: its type and why) and never translated,
// answered or recorded, so a broken or newer harness can only ever hurt its own session.
import { type ReinsEvent, ReinsEventSchema } from '@reins/core';

/** Why an event was not taken, for the bridge's log. */
export interface TranslationFault {
  eventType: string;
  reason: string;
}

export function eventTypeOf(event: unknown): string {
  return typeof event === 'object' && event !== null ? String((event as { type?: unknown }).type) : typeof event;
}

/** The event, checked; or the fault that keeps it out. */
export function checkedEvent(event: unknown): { event: ReinsEvent } | { fault: TranslationFault } {
  const parsed = ReinsEventSchema.safeParse(event);
  if (parsed.success) return { event: parsed.data };
  return {
    fault: {
      eventType: eventTypeOf(event),
      reason: `not a valid Reins event: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    },
  };
}

/** Runs a translation of a checked event; a throw becomes a fault and no output. */
export function guarded<T>(
  event: unknown,
  translate: (event: ReinsEvent) => T[],
  onFault: (fault: TranslationFault) => void,
): T[] {
  const checked = checkedEvent(event);
  if ('fault' in checked) {
    onFault(checked.fault);
    return [];
  }
  try {
    return translate(checked.event);
  } catch (error) {
    onFault({ eventType: checked.event.type, reason: error instanceof Error ? error.message : String(error) });
    return [];
  }
}
