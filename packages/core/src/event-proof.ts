// The event guard's cheap proof (event-stream.ts runs it before the full checks): an event of the types
// a turn is made of, proven valid field by field instead of by ReinsEventSchema and the serialisability
// walk. A schema parse costs 1-5 µs in a tight loop and tens of µs in a warm turn, where its code and
// schema objects have left the CPU's caches; every turn's start, items, usage and terminal paid it in
// each process that streams them (the library, the daemon, a bridge). The proof covers the common
// shapes only and says "not proven" for anything else (an image, an error's data, a plan), which
// then goes through the full checks as before: it may refuse a valid event, never vouch for an invalid
// one (event-proof.test.ts judges it against both on seeded mutations).
import { ERROR_CODES } from './errors.js';
import { isPlainScalar, MAX_EVENT_DEPTH, MAX_VISITED_OBJECTS, measureValue, type ValueMeasure } from './event-guard.js';
import { PASSTHROUGH_REASONS, type ReinsEvent, SESSION_STATUSES } from './events.js';
import { isRecord } from './guards.js';
import { ITEM_STATUSES, TOOL_KINDS, USER_MESSAGE_ORIGINS } from './items.js';

type Fields = Record<string, unknown>;

const DELTA_KINDS = new Set<unknown>(['text', 'reasoning', 'tool_output', 'tool_input']);
const PASSTHROUGH_REASON_SET = new Set<unknown>(PASSTHROUGH_REASONS);
const SESSION_STATUS_SET = new Set<unknown>(SESSION_STATUSES);
const ITEM_STATUS_SET = new Set<unknown>(ITEM_STATUSES);
const ORIGIN_SET = new Set<unknown>(USER_MESSAGE_ORIGINS);
const TOOL_KIND_SET = new Set<unknown>(TOOL_KINDS);
const CHANGE_KIND_SET = new Set<unknown>(['add', 'update', 'delete', 'move']);
const TOOL_CALL_KEYS = new Set(['tool', 'input', 'output', 'changes']);
const ERROR_CODE_SET = new Set<unknown>(ERROR_CODES);
const TOKEN_KEYS = ['input', 'cachedInput', 'cacheWrite', 'output', 'reasoning', 'total'] as const;
/** Per proven type, the payload keys that may hold an object (every other key holds a scalar). */
const NO_KEYS: ReadonlySet<string> = new Set();
const FRAME_KEY: ReadonlySet<string> = new Set(['frame']);
const ITEM_KEY: ReadonlySet<string> = new Set(['item']);
const INPUT_KEY: ReadonlySet<string> = new Set(['input']);
const TERMINAL_KEYS: ReadonlySet<string> = new Set(['outcome', 'usage']);
const USAGE_KEYS: ReadonlySet<string> = new Set(['turn', 'total', 'context', 'costUsd']);

const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const optionalBoolean = (value: unknown) => value === undefined || typeof value === 'boolean';
/** What zod's z.number() takes: finite numbers only. */
const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
const optionalCount = (value: unknown) => value === undefined || (finite(value) && (value as number) >= 0);

/** Every own value of `fields` is one JSON carries as it is: no object in it escapes the proof. */
function onlyScalars(fields: Fields): boolean {
  for (const key in fields) if (Object.hasOwn(fields, key) && !isPlainScalar(fields[key])) return false;
  return true;
}

/**
 * The objects in an item a turn is made of (itself and what it holds), or 0 when it is not proven: an
 * agent message, reasoning, a user message without images, or a tool call.
 */
function provenItem(value: unknown): number {
  if (!isRecord(value) || typeof value.id !== 'string' || !ITEM_STATUS_SET.has(value.status)) return 0;
  const kind = value.kind;
  if (kind === 'tool_call') return provenToolCall(value);
  if (!onlyScalars(value) || typeof value.text !== 'string') return 0;
  if (kind === 'agent_message') return 1;
  if (kind === 'reasoning') return optionalString(value.summary) ? 1 : 0;
  if (kind === 'user_message')
    return value.images === undefined &&
      optionalBoolean(value.replay) &&
      optionalString(value.clientMessageId) &&
      (value.origin === undefined || ORIGIN_SET.has(value.origin))
      ? 1
      : 0;
  return 0;
}

/**
 * A tool call's objects, or 0: its tool and changes checked field by field, its input and structured
 * output (any value the harness gave) measured, as the walk would, within the depth left below them.
 */
function provenToolCall(item: Fields): number {
  const { tool, input, output, changes, exitCode } = item;
  if (
    !isRecord(tool) ||
    !onlyScalars(tool) ||
    !TOOL_KIND_SET.has(tool.kind) ||
    typeof tool.name !== 'string' ||
    !optionalString(tool.title) ||
    (exitCode !== undefined && !Number.isSafeInteger(exitCode))
  )
    return 0;
  for (const key in item)
    if (Object.hasOwn(item, key) && !TOOL_CALL_KEYS.has(key) && !isPlainScalar(item[key])) return 0;
  let objects = 2;
  // The event is level 1 and the item level 2: the input starts at 3.
  if (input !== undefined) {
    const measure = measureValue(input, MAX_EVENT_DEPTH - 2);
    if (measure === undefined) return 0;
    objects += measure.objects;
  }
  if (output !== undefined) {
    if (!isRecord(output) || !optionalString(output.text)) return 0;
    for (const key in output)
      if (Object.hasOwn(output, key) && key !== 'structured' && !isPlainScalar(output[key])) return 0;
    objects += 1;
    if (output.structured !== undefined) {
      const measure = measureValue(output.structured, MAX_EVENT_DEPTH - 3);
      if (measure === undefined) return 0;
      objects += measure.objects;
    }
  }
  if (changes !== undefined) {
    if (!Array.isArray(changes)) return 0;
    for (const change of changes)
      if (
        !isRecord(change) ||
        !onlyScalars(change) ||
        typeof change.path !== 'string' ||
        !CHANGE_KIND_SET.has(change.kind) ||
        !optionalString(change.diff) ||
        !optionalString(change.movePath)
      )
        return 0;
    objects += 1 + changes.length;
  }
  return objects;
}

/** A turn's input that is text only (images and files are left to the schema). */
function provenInput(value: unknown): boolean {
  return (
    isRecord(value) &&
    onlyScalars(value) &&
    typeof value.text === 'string' &&
    value.images === undefined &&
    value.files === undefined
  );
}

function provenTokens(value: unknown): boolean {
  if (!isRecord(value) || !onlyScalars(value)) return false;
  for (const key of TOKEN_KEYS) if (!optionalCount(value[key])) return false;
  return true;
}

/** Usage's fields as UsageSchema has them (usage.updated's own too), each absent or proven. */
function provenUsageFields(fields: Fields): boolean {
  const { turn, total, context, costUsd } = fields;
  if (turn !== undefined && !provenTokens(turn)) return false;
  if (total !== undefined && !provenTokens(total)) return false;
  if (
    context !== undefined &&
    !(
      isRecord(context) &&
      onlyScalars(context) &&
      (context.used === undefined || finite(context.used)) &&
      (context.window === undefined || finite(context.window))
    )
  )
    return false;
  return (
    costUsd === undefined ||
    (isRecord(costUsd) &&
      onlyScalars(costUsd) &&
      finite(costUsd.amount) &&
      (costUsd.amount as number) >= 0 &&
      costUsd.currency === 'USD' &&
      (costUsd.source === 'provider' || costUsd.source === 'derived'))
  );
}

/** A turn's usage: its fields proven, and no other object in it. */
function provenUsage(value: unknown): boolean {
  if (!isRecord(value) || !provenUsageFields(value)) return false;
  for (const key in value)
    if (Object.hasOwn(value, key) && !USAGE_KEYS.has(key) && !isPlainScalar(value[key])) return false;
  return true;
}

/** A turn's outcome; a failure's error without `data` (a record of anything is left to the schema). */
function provenOutcome(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const status = value.status;
  if (status === 'completed' || status === 'cancelled') return onlyScalars(value);
  if (status !== 'failed') return false;
  const error = value.error;
  for (const key in value) if (Object.hasOwn(value, key) && key !== 'error' && !isPlainScalar(value[key])) return false;
  return (
    isRecord(error) &&
    onlyScalars(error) &&
    ERROR_CODE_SET.has(error.code) &&
    typeof error.message === 'string' &&
    optionalBoolean(error.retryable) &&
    error.data === undefined
  );
}

/**
 * The payload's own fields (beside the envelope) proven for the types a turn is made of: the keys that
 * may hold an object (each proven here, or a passthrough's frame, measured by the caller; every other
 * key must hold a scalar), or undefined when not proven.
 */
function provenPayload(type: unknown, e: Fields): ReadonlySet<string> | undefined {
  switch (type) {
    case 'item.delta':
      return typeof e.itemId === 'string' && typeof e.text === 'string' && DELTA_KINDS.has(e.kind)
        ? NO_KEYS
        : undefined;
    case 'passthrough':
      return e.frame !== undefined && (e.reason === undefined || PASSTHROUGH_REASON_SET.has(e.reason))
        ? FRAME_KEY
        : undefined;
    case 'item.started':
    case 'item.completed':
      // Proven where the walk below meets it (provenItem): an own object, or it is not proven at all.
      return Object.hasOwn(e, 'item') && isRecord(e.item) ? ITEM_KEY : undefined;
    case 'turn.started':
      return provenInput(e.input) ? INPUT_KEY : undefined;
    case 'turn.completed':
      return provenOutcome(e.outcome) &&
        (e.usage === undefined || provenUsage(e.usage)) &&
        // A structured output is any value: the schema and the walk judge it.
        e.structuredOutput === undefined &&
        optionalString(e.stopReason)
        ? TERMINAL_KEYS
        : undefined;
    case 'usage.updated':
      return provenUsageFields(e) ? USAGE_KEYS : undefined;
    case 'session.status':
      return SESSION_STATUS_SET.has(e.status) ? NO_KEYS : undefined;
    default:
      return undefined;
  }
}

/**
 * True only when `event` certainly passes ReinsEventSchema AND isSerialisable, checked field by field
 * with the native frame's measure from NativeFrameCheck instead of a second walk. False means "not
 * proven": run schemaProblem and isSerialisable.
 */
export function provenValid(event: ReinsEvent, nativeMeasure: ValueMeasure | undefined): boolean {
  const e = event as unknown as Fields;
  const type = e.type;
  if (
    !Number.isSafeInteger(e.seq) ||
    (e.seq as number) <= 0 ||
    typeof e.harness !== 'string' ||
    typeof e.sessionId !== 'string' ||
    (e.turnId !== null && typeof e.turnId !== 'string') ||
    typeof e.at !== 'number' ||
    !Number.isFinite(e.at) ||
    (e.parentItemId !== undefined && typeof e.parentItemId !== 'string')
  )
    return false;
  const objectKeys = provenPayload(type, e);
  if (objectKeys === undefined) return false;
  // Serialisable: every value a plain scalar, but the native frame (measured) and the payload's proven objects.
  let objects = 1;
  let nativeFrame: unknown;
  const native = e.native;
  if (native !== undefined) {
    if (native === null || typeof native !== 'object' || Array.isArray(native) || nativeMeasure === undefined)
      return false;
    const n = native as Fields;
    nativeFrame = n.frame;
    if (
      typeof n.source !== 'string' ||
      (n.method !== undefined && typeof n.method !== 'string') ||
      nativeFrame === undefined ||
      nativeMeasure.depth + 2 > MAX_EVENT_DEPTH
    )
      return false;
    for (const key in n) if (key !== 'frame' && Object.hasOwn(n, key) && !isPlainScalar(n[key])) return false;
    objects += 1 + nativeMeasure.objects;
  }
  for (const key in e) {
    if (!Object.hasOwn(e, key) || key === 'native') continue;
    const value = e[key];
    if (isPlainScalar(value)) continue;
    if (!objectKeys.has(key)) return false;
    if (key === 'item') {
      const held = provenItem(value);
      if (held === 0) return false;
      objects += held;
      continue;
    }
    if (key !== 'frame') {
      // Proven above: flat objects (a usage's three levels at most), far inside the limits.
      objects += 3;
      continue;
    }
    // A passthrough's frame is its native frame, or measured here.
    const measure = value === nativeFrame && nativeMeasure ? nativeMeasure : measureValue(value, MAX_EVENT_DEPTH - 1);
    if (measure === undefined || measure.depth + 1 > MAX_EVENT_DEPTH) return false;
    objects += measure.objects;
  }
  return objects <= MAX_VISITED_OBJECTS;
}
