// Readers for the foreign values of stream-json frames (what the translation accepts as a number, a count,
// a word for a message, or a value to put in a payload, and a frame's lane). How it emits: sink.ts.
import { isSerialisable, truncatedValue } from '@reins/core';

export type JsonObject = Record<string, unknown>;
/** Core's isRecord, under the name the stream-json readers use. */
export { isRecord as isObject } from '@reins/core';
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

/**
 * The subagent lane of a frame from its parent_tool_use_id: that id, or undefined for the main thread.
 * The caller reads the field: each kind of frame then has its own lookup site, which sees few shapes.
 */
export function laneOf(parentToolUseId: unknown): string | undefined {
  return typeof parentToolUseId === 'string' ? parentToolUseId : undefined;
}
