// The one check both bridges put every harness event through before anything acts on it: the Reins
// event schema. An event that fails it is reported (a fault: its type and why) and never translated,
// answered or recorded, so a broken or newer harness can only ever hurt its own session. Events an
// in-process session's stream already put through core's event guard are not checked twice
// (eventChecker).
import { isGuardedEvents, type ReinsEvent, ReinsEventSchema } from '@reins/core';

/** Why an event was not taken, for the bridge's log. */
export interface TranslationFault {
  eventType: string;
  reason: string;
}

/** An event's type for the log; a type that is not a string (50,000 nested arrays) is only named. */
export function eventTypeOf(event: unknown): string {
  if (typeof event !== 'object' || event === null) return typeof event;
  const type = (event as { type?: unknown }).type;
  return typeof type === 'string' ? type.slice(0, 100) : `(${typeof type} type)`;
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

/**
 * checkedEvent for the events of one session: a pass-through for a stream whose events core's event
 * guard checked in this process already (an in-process harness: this second parse was 0.25-0.65 ms of
 * a bridge's main-thread CPU per warm Codex turn, bench/README.md), the schema for any other (a
 * daemon's, a Harness written outside Reins, another copy of @reins/core's).
 */
export function eventChecker(
  events: AsyncIterable<unknown>,
): (event: unknown) => { event: ReinsEvent } | { fault: TranslationFault } {
  return isGuardedEvents(events) ? (event) => ({ event: event as ReinsEvent }) : checkedEvent;
}

/** Checks an event, then translates it (translatedSafely); a failed check is a fault and no output. */
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
  return translatedSafely(checked.event, translate, onFault);
}

/**
 * Translates an event that already passed checkedEvent: a throw becomes a fault and no output. The
 * pumps check each event once and act on the checked copy; checking it again here cost a second
 * schema parse per event on every warm turn.
 */
export function translatedSafely<T>(
  event: ReinsEvent,
  translate: (event: ReinsEvent) => T[],
  onFault: (fault: TranslationFault) => void,
): T[] {
  try {
    return translate(event);
  } catch (error) {
    onFault({ eventType: event.type, reason: error instanceof Error ? error.message : String(error) });
    return [];
  }
}
