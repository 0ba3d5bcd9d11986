// Readers for the foreign values of stream-json frames (what the translation accepts as a number, a count,
// a word for a message, or a value to put in a payload), and the two ways it emits: on a lane, or passed through.
import { type EventPayload, isSerialisable, type PassthroughReason, truncatedValue } from '@reins/core';
import type { Emission } from './state.js';

export type JsonObject = Record<string, unknown>;
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
/** A foreign value for a payload field: itself, or a marker when it nests too deep to be sent. */
export const sendable = (value: unknown): unknown =>
  isSerialisable(value) ? value : truncatedValue('the value nests too deep to be sent');
/** A number or word of the harness for a message; never the text of an object (which may nest without end). */
export const shown = (value: unknown, absent: string): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 200) : absent;
/** A token count or cost the harness reported; anything else (wrong type, negative) is absent, never zero. */
export const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** A payload on its subagent lane (parent_tool_use_id), or the main thread. */
export function withLane(payload: EventPayload, parentItemId: string | undefined): Emission {
  return parentItemId === undefined ? { payload } : { payload, parentItemId };
}

/** A frame passed through (with the reason when Reins did not understand it). */
export function passthrough(frame: unknown, parentItemId?: string, reason?: PassthroughReason): Emission[] {
  return [passthroughEmission(frame, parentItemId, reason)];
}

/** The one emission of `passthrough`, to add to a list (no array made to spread). */
export function passthroughEmission(frame: unknown, parentItemId?: string, reason?: PassthroughReason): Emission {
  return withLane(reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame }, parentItemId);
}

/** The subagent lane of a frame: its parent_tool_use_id, or undefined for the main thread. */
export function laneOf(frame: { parent_tool_use_id?: string | null }): string | undefined {
  return typeof frame.parent_tool_use_id === 'string' ? frame.parent_tool_use_id : undefined;
}
