// A subscribed session's events on the wire: `session/event` (one), `session/events` (a batch,
// for clients granted `eventBatches`) and `session/eventPart` (a part of one big event, for clients
// granted `eventParts`), read without a copy on the hot path.
import { isRecord, type ReinsEvent } from '@reins/core';
import { z } from 'zod';

/** Daemon -> client: one event of a subscribed session, in seq order, no gaps, no duplicates. */
export const SESSION_EVENT = 'session/event';
export interface SessionEventParams {
  sessionId: string;
  event: ReinsEvent;
}
/**
 * Checked loosely on purpose: a newer daemon may add event types, and a client should pass them on
 * rather than drop the connection. The envelope (type, seq) is what ordering depends on.
 */
export const SessionEventParamsSchema = z.object({
  sessionId: z.string().min(1),
  event: z.looseObject({ type: z.string().min(1), seq: z.number().int().positive(), sessionId: z.string() }),
});

const isFilledString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * session/event params, checked the way SessionEventParamsSchema checks them but without the copy
 * a zod parse makes of every event (this is every client's hot path). What passes the structural
 * check is handed on as it came, the event in the daemon's own key order; anything else goes to
 * the schema, so a bad frame is judged exactly as before. undefined: not session/event params.
 */
export function readSessionEventParams(params: unknown): SessionEventParams | undefined {
  if (isRecord(params) && isFilledString(params.sessionId) && isEventEnvelope(params.event)) {
    return params as unknown as SessionEventParams;
  }
  const parsed = SessionEventParamsSchema.safeParse(params);
  return parsed.success ? (parsed.data as unknown as SessionEventParams) : undefined;
}

/**
 * Daemon -> a client that was granted `eventBatches`: consecutive events of one subscribed session
 * in one notification (a replay page), each event exactly as `session/event` would carry it, in seq
 * order with no gap; the next notification of the session goes on after the last of them. A batch
 * holds at least one event; the daemon bounds it by count and bytes (docs/architecture/daemon.md).
 */
export const SESSION_EVENTS = 'session/events';
export interface SessionEventsParams {
  sessionId: string;
  events: ReinsEvent[];
}
export const SessionEventsParamsSchema = z.object({
  sessionId: z.string().min(1),
  events: z.array(SessionEventParamsSchema.shape.event).min(1),
});

/**
 * Daemon -> a client that was granted `eventParts`: one part of an event whose JSON is too big for
 * one frame. The `count` parts of seq `seq` come in order (index 0 to count - 1), nothing of that
 * session in between; their `data` joined is the event's JSON, as `session/event` would carry it.
 */
export const SESSION_EVENT_PART = 'session/eventPart';
export interface SessionEventPartParams {
  sessionId: string;
  seq: number;
  index: number;
  count: number;
  data: string;
}
export const SessionEventPartParamsSchema = z.object({
  sessionId: z.string().min(1),
  seq: z.number().int().positive(),
  index: z.number().int().nonnegative(),
  count: z.number().int().min(2),
  data: z.string(),
});

function isEventEnvelope(event: unknown): boolean {
  return (
    isRecord(event) &&
    isFilledString(event.type) &&
    Number.isSafeInteger(event.seq) &&
    (event.seq as number) > 0 &&
    typeof event.sessionId === 'string'
  );
}

/**
 * session/events params, checked like readSessionEventParams: structurally, each event as
 * `session/event` checks it, with no copy; anything else goes to the schema. undefined: not
 * session/events params (the whole batch is refused, never part of it).
 */
export function readSessionEventsParams(params: unknown): SessionEventsParams | undefined {
  if (isRecord(params) && isFilledString(params.sessionId) && Array.isArray(params.events)) {
    const events = params.events as unknown[];
    let fits = events.length > 0;
    for (let index = 0; fits && index < events.length; index++) fits = isEventEnvelope(events[index]);
    if (fits) return params as unknown as SessionEventsParams;
  }
  const parsed = SessionEventsParamsSchema.safeParse(params);
  return parsed.success ? (parsed.data as unknown as SessionEventsParams) : undefined;
}
