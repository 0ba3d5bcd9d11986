// The last line of defence between an adapter and every consumer (contract: "a harness can only hurt
// its own session", docs/architecture/contract.md): every event is checked against the Reins schema
// and for JSON serialisability before it gets a seq. An event that fails is repaired where the fix is
// honest (a native frame nested too deep or too big is truncated with a marker) or replaced by a
// passthrough that keeps the frame; it never reaches a consumer as it was, and it never leaves a gap in
// the seq. A native frame that fans out into many events is carried whole by the first of them only.
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
export const MAX_VISITED_OBJECTS = 1_000_000;

/**
 * Where a native frame sits in an event (event -> native -> frame): the frame may nest this deep, so
 * the whole event stays within MAX_EVENT_DEPTH.
 */
export const MAX_NATIVE_FRAME_DEPTH = MAX_EVENT_DEPTH - 2;

/**
 * Characters (strings and keys) a native copy may hold; past this the copy is truncated with a marker,
 * so a huge harness frame is not stored and sent a second time beside its translation.
 */
export const MAX_NATIVE_FRAME_CHARS = 1024 * 1024;

/**
 * What stands for a native frame that an earlier event of the same session carries whole (the frame
 * fanned out into several events; docs/architecture/contract.md, "Events"): that event's seq.
 */
export interface NativeFrameRef {
  reinsFrameRef: number;
}

/** The seq a native frame refers to, when it is a reference. */
export function nativeFrameRef(frame: unknown): number | undefined {
  if (frame === null || typeof frame !== 'object') return undefined;
  const ref = (frame as Partial<NativeFrameRef>).reinsFrameRef;
  return typeof ref === 'number' ? ref : undefined;
}

/**
 * What a walk found in a value that serialises: its deepest object's level (0 for a scalar), objects
 * seen, and the characters of its strings and keys (about its serialised size).
 */
export interface ValueMeasure {
  depth: number;
  objects: number;
  chars: number;
}

/**
 * The walk behind isSerialisable: the measure of `value`, or undefined when it nests deeper than
 * `limit` (a cycle is infinitely deep), holds more than MAX_VISITED_OBJECTS objects, or a bigint,
 * function or symbol. It runs for every native frame, so it allocates nothing but its result: it
 * recurses, at most `limit` levels deep (no hostile value can overflow the stack through a bounded
 * limit); a limit past RECURSION_LIMIT takes an explicit stack instead.
 */
export function measureValue(value: unknown, limit = MAX_EVENT_DEPTH): ValueMeasure | undefined {
  if (value === null || typeof value !== 'object') return isPlainScalar(value) ? scalarMeasure(value) : undefined;
  if (limit > RECURSION_LIMIT) return measureWithStack(value, limit);
  // The measure is filled in as the walk goes, and is its result.
  const measure: ValueMeasure = { depth: 0, objects: 0, chars: 0 };
  return visit(value, 1, limit, measure) ? measure : undefined;
}

/** The deepest limit measureValue walks by recursion (far from V8's stack limit of ~10,000 frames). */
const RECURSION_LIMIT = 1024;

/** False when `current` or something in it is too deep, too large or not JSON; counts into `measure`. */
function visit(current: object, depth: number, limit: number, measure: ValueMeasure): boolean {
  if (depth > limit || ++measure.objects > MAX_VISITED_OBJECTS) return false;
  if (depth > measure.depth) measure.depth = depth;
  if (Array.isArray(current)) {
    for (const child of current) {
      if (child !== null && typeof child === 'object') {
        if (!visit(child, depth + 1, limit, measure)) return false;
      } else if (typeof child === 'string') measure.chars += child.length;
      else if (!isPlainScalar(child)) return false;
    }
    return true;
  }
  // Own enumerable string keys, as Object.values has them, without an array of values per object.
  for (const key in current) {
    if (!Object.hasOwn(current, key)) continue;
    measure.chars += key.length;
    const child = (current as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object') {
      if (!visit(child, depth + 1, limit, measure)) return false;
    } else if (typeof child === 'string') measure.chars += child.length;
    else if (!isPlainScalar(child)) return false;
  }
  return true;
}

/** measureValue with its own stack, for limits too deep to recurse. */
function measureWithStack(value: object, limit: number): ValueMeasure | undefined {
  const stack: Array<[object, number]> = [[value, 1]];
  let visited = 0;
  let deepest = 0;
  let chars = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [object, number];
    if (depth > limit || ++visited > MAX_VISITED_OBJECTS) return undefined;
    if (depth > deepest) deepest = depth;
    if (!Array.isArray(current)) for (const key of Object.keys(current)) chars += key.length;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      else if (typeof child === 'string') chars += child.length;
      else if (!isPlainScalar(child)) return undefined;
    }
  }
  return { depth: deepest, objects: visited, chars };
}

function scalarMeasure(value: unknown): ValueMeasure {
  return { depth: 0, objects: 0, chars: typeof value === 'string' ? value.length : 0 };
}

/** The measure isSerialisable walks into; undefined while a walk uses it. */
let spareMeasure: ValueMeasure | undefined = { depth: 0, objects: 0, chars: 0 };

/**
 * True when `value` can go through JSON.stringify and come back as the same data: no nesting deeper
 * than `limit` (a cycle is infinitely deep), no bigint, function or symbol values.
 */
export function isSerialisable(value: unknown, limit = MAX_EVENT_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return isPlainScalar(value);
  if (limit > RECURSION_LIMIT) return measureWithStack(value, limit) !== undefined;
  // measureValue's walk into a measure nobody keeps: one reused, rather than one made per value (it runs
  // for every tool input and result, and for events the cheaper proof does not cover). A walk that starts
  // while another is under way (a getter that checks a value) makes its own.
  const measure = spareMeasure ?? { depth: 0, objects: 0, chars: 0 };
  spareMeasure = undefined;
  measure.depth = 0;
  measure.objects = 0;
  measure.chars = 0;
  try {
    return visit(value, 1, limit, measure);
  } finally {
    spareMeasure = measure;
  }
}

/** A value JSON carries as it is (undefined: dropped, as an absent key). */
export function isPlainScalar(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined' || value === null;
}

/**
 * Checks a native frame once per object and keeps it once: one frame often yields several events in a
 * row, so the last frame's measure is kept, and once an event carried it whole (`carried`) the next
 * events of that frame get a NativeFrameRef instead (one frame held per session; a frame seen again
 * after another is walked and carried again).
 */
export class NativeFrameCheck {
  private lastFrame: object | undefined;
  private lastMeasure: ValueMeasure | undefined;
  private carriedBySeq: number | undefined;

  /**
   * The frame itself when it serialises within MAX_NATIVE_FRAME_DEPTH and MAX_NATIVE_FRAME_CHARS, a
   * reference when an earlier event carried it, else a copy whose `frame` is a truncation marker;
   * `measure` is that of the frame as returned.
   */
  safe(native: NativeFrame): { native: NativeFrame; truncated: boolean; measure: ValueMeasure } {
    const frame = native.frame;
    if (frame === null || typeof frame !== 'object') {
      if (!isPlainScalar(frame)) return this.truncate(native, 'holds non-JSON values');
      const measure = scalarMeasure(frame);
      return measure.chars > MAX_NATIVE_FRAME_CHARS
        ? this.truncate(native, `holds ${measure.chars} characters (more than ${MAX_NATIVE_FRAME_CHARS})`)
        : { native, truncated: false, measure };
    }
    if (frame === this.lastFrame) {
      if (this.carriedBySeq !== undefined) {
        const ref: NativeFrameRef = { reinsFrameRef: this.carriedBySeq };
        return { native: { ...native, frame: ref }, truncated: false, measure: REF_MEASURE };
      }
    } else {
      this.lastFrame = frame;
      this.lastMeasure = measureValue(frame, MAX_NATIVE_FRAME_DEPTH);
      this.carriedBySeq = undefined;
    }
    const measure = this.lastMeasure;
    if (measure === undefined) {
      return this.truncate(native, `nests deeper than ${MAX_NATIVE_FRAME_DEPTH} levels or holds non-JSON values`);
    }
    if (measure.chars > MAX_NATIVE_FRAME_CHARS) {
      return this.truncate(native, `holds ${measure.chars} characters (more than ${MAX_NATIVE_FRAME_CHARS})`);
    }
    return { native, truncated: false, measure };
  }

  /** The event `seq` was emitted with `frame` whole: later events of the same frame refer to it. */
  carried(frame: unknown, seq: number): void {
    if (frame === this.lastFrame && frame !== undefined && this.carriedBySeq === undefined) this.carriedBySeq = seq;
  }

  private truncate(native: NativeFrame, why: string): { native: NativeFrame; truncated: true; measure: ValueMeasure } {
    return { native: truncatedNative(native, `the native frame ${why}`), truncated: true, measure: MARKER_MEASURE };
  }
}

/** `native` with its frame replaced by a truncation marker (source and method kept). */
export function truncatedNative(native: NativeFrame, reason: string): NativeFrame {
  return { ...native, frame: truncatedValue(reason) };
}

const REF_MEASURE: ValueMeasure = { depth: 1, objects: 1, chars: 'reinsFrameRef'.length };
/** A truncation marker's measure; its reason is short, far below any limit. */
const MARKER_MEASURE: ValueMeasure = { depth: 1, objects: 1, chars: 256 };

/** Why an event failed the schema, in a short sentence (first issue only). */
export function schemaProblem(event: unknown): string | undefined {
  const result = ReinsEventSchema.safeParse(event);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return 'it does not match the Reins event schema';
  const path = issue.path.length > 0 ? issue.path.join('.') : '(event)';
  return `${path}: ${issue.message}`;
}

/**
 * A copy of `value` that serialises: what nests deeper than `limit` (or sits past the object budget),
 * and values JSON has no form for (bigint, functions, symbols), become truncation markers. Recursion
 * is bounded by `limit`, so this cannot overflow the stack either. The default leaves room for the
 * envelope and the marker itself under MAX_EVENT_DEPTH.
 */
export function truncateDeep(value: unknown, limit = MAX_EVENT_DEPTH - 8): unknown {
  let budget = 100_000;
  const copy = (current: unknown, depth: number): unknown => {
    if (current === null || typeof current !== 'object') {
      return isPlainScalar(current) ? current : truncatedValue(`a ${typeof current} has no JSON form`);
    }
    if (depth >= limit || --budget < 0) return truncatedValue(`nested deeper than ${limit} levels`);
    if (Array.isArray(current)) return current.map((item) => copy(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(current)) out[key] = copy(item, depth + 1);
    return out;
  };
  return copy(value, 0);
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
