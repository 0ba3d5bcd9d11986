// The last line of defence between an adapter and every consumer (contract: "a harness can only hurt
// its own session", docs/architecture/contract.md): every event is checked against the Reins schema
// and for JSON serialisability before it gets a seq. An event that fails is repaired where the fix is
// honest (a native frame nested too deep is truncated with a marker) or replaced by a passthrough that
// keeps the frame; it never reaches a consumer as it was, and it never leaves a gap in the seq.
import type { ErrorInfo } from './errors.js';
import { type EventPayload, type NativeFrame, type ReinsEvent, ReinsEventSchema } from './events.js';

/** Deeper than this and JSON.stringify may overflow the stack (V8 manages a few thousand levels). */
export const MAX_EVENT_DEPTH = 256;

/** What replaces a value that cannot be serialised, so a consumer sees that something was there. */
export interface TruncatedValue {
  reinsTruncated: true;
  reason: string;
}

export function truncatedValue(reason: string): TruncatedValue {
  return { reinsTruncated: true, reason };
}

/** Objects visited at most; past this a value is too large to vouch for (shared references fan out). */
const MAX_VISITED_OBJECTS = 1_000_000;

/**
 * True when `value` can go through JSON.stringify and come back as the same data: no nesting deeper
 * than `limit` (a cycle is infinitely deep), no bigint, function or symbol values. Iterative, so a
 * hostile value cannot overflow the stack here either.
 */
export function isSerialisable(value: unknown, limit = MAX_EVENT_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return isPlainScalar(value);
  const stack: Array<[object, number]> = [[value, 1]];
  let visited = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [object, number];
    if (depth > limit || ++visited > MAX_VISITED_OBJECTS) return false;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      else if (!isPlainScalar(child)) return false;
    }
  }
  return true;
}

function isPlainScalar(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined' || value === null;
}

/** Checks a native frame once per object (one frame often yields several events). */
export class NativeFrameCheck {
  private readonly verdicts = new WeakMap<object, boolean>();

  /** The frame itself when it serialises, else a copy whose `frame` is a truncation marker. */
  safe(native: NativeFrame): { native: NativeFrame; truncated: boolean } {
    const frame = native.frame;
    if (frame === null || typeof frame !== 'object') {
      return isPlainScalar(frame) ? { native, truncated: false } : { native: this.truncate(native), truncated: true };
    }
    let ok = this.verdicts.get(frame);
    if (ok === undefined) {
      ok = isSerialisable(frame);
      this.verdicts.set(frame, ok);
    }
    return ok ? { native, truncated: false } : { native: this.truncate(native), truncated: true };
  }

  private truncate(native: NativeFrame): NativeFrame {
    return {
      ...native,
      frame: truncatedValue(`the native frame nests deeper than ${MAX_EVENT_DEPTH} levels or holds non-JSON values`),
    };
  }
}

/** Why an event failed the schema, in a short sentence (first issue only). */
export function schemaProblem(event: unknown): string | undefined {
  const result = ReinsEventSchema.safeParse(event);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return 'it does not match the Reins event schema';
  const path = issue.path.length > 0 ? issue.path.join('.') : '(event)';
  return `${path}: ${issue.message}`;
}

/** A valid event for the slot of one that failed: a repaired terminal, or a passthrough keeping the frame. */
export function replacementPayload(
  payload: EventPayload,
  native: NativeFrame | undefined,
  problem: string,
): EventPayload {
  switch (payload.type) {
    case 'turn.completed': {
      // The terminal must stay a terminal: keep the outcome if it is valid, drop what is not.
      const outcomeOk = ReinsEventSchema.safeParse({
        ...probeEnvelope,
        type: 'turn.completed',
        outcome: payload.outcome,
      });
      const error: ErrorInfo = {
        code: 'protocol_error',
        message: `The harness ended the turn with a terminal Reins could not read (${problem}).`,
      };
      return {
        type: 'turn.completed',
        outcome: outcomeOk.success ? payload.outcome : { status: 'failed', error },
      };
    }
    case 'turn.started':
      return { type: 'turn.started', input: { text: '' } };
    case 'session.closed':
      return { type: 'session.closed', reason: payload.reason };
    default:
      return {
        type: 'passthrough',
        frame: native?.frame ?? truncatedValue(`an invalid ${payload.type} event (${problem})`),
        reason: 'invalid_event',
      };
  }
}

const probeEnvelope = { seq: 1, harness: 'probe', sessionId: 'probe', turnId: null, at: 0 };

/** Serialisable stand-in for a payload whose own content (tool input, frame) is too deep. */
export function serialisablePayload(payload: EventPayload): EventPayload | undefined {
  if (isSerialisable(payload)) return undefined;
  if (payload.type === 'passthrough') {
    return { ...payload, frame: truncatedValue(`the frame nests deeper than ${MAX_EVENT_DEPTH} levels`) };
  }
  return undefined;
}

export type { ReinsEvent };
