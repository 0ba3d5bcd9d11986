// The fuzzer's mutation engine: takes a recorded sequence of native frames (parsed JSON values) and
// returns a damaged copy, the way a broken, truncated or newer harness would send it. Deterministic:
// the same frames, options and Random seed give the same result. Generic over the wire: what a frame
// looks like is told by options (which keys name a frame's type, which keys hold an enum and its values;
// see wire-enums.ts to read those from a harness's wire types).
//
// Mutations inside one frame: drop-field, wrong-type, truncate (a string, an array, an object's tail, or
// the whole frame cut to a partial JSON text), unknown-type, unknown-enum (an unknown value, sometimes a
// name every object inherits, or another declared value of the same field), extra-field, huge-string, deep-nesting (a parsed value nested
// `nestingDepth` levels, 50,000 by default). Mutations of the sequence: duplicate, reorder, drop-frame,
// cut-sequence (everything after a point is lost, as when the harness dies).
//
// The input array is never changed; its frames are frozen in place and shared with the output (a mutated
// frame is a copy), so a translator that writes into its input fails loudly instead of corrupting the
// corpus for the next case.
import type { Random } from './random.js';

export const FRAME_MUTATIONS = [
  'drop-field',
  'wrong-type',
  'truncate',
  'unknown-type',
  'unknown-enum',
  'extra-field',
  'huge-string',
  'deep-nesting',
] as const;
export const SEQUENCE_MUTATIONS = ['duplicate', 'reorder', 'drop-frame', 'cut-sequence'] as const;
export type FrameMutationKind = (typeof FRAME_MUTATIONS)[number];
export type SequenceMutationKind = (typeof SEQUENCE_MUTATIONS)[number];
export type MutationKind = FrameMutationKind | SequenceMutationKind;
export const MUTATION_KINDS: readonly MutationKind[] = [...FRAME_MUTATIONS, ...SEQUENCE_MUTATIONS];

/** A field whose wire type is a closed set of strings, matched by its key at any depth of a frame. */
export interface EnumField {
  key: string;
  values: readonly string[];
}

export interface MutationOptions {
  /** Keys that name what a frame or a part of it is ('type', 'method', ...); unknown-type rewrites these. */
  typeFields?: readonly string[];
  /** Enum-typed fields the wire declares; unknown-enum rewrites these. */
  enumFields?: readonly EnumField[];
  /** Mutations per case: between 1 and this (default 3). */
  maxMutations?: number;
  /** Relative weight of each kind (default DEFAULT_WEIGHTS); 0 turns a kind off. */
  weights?: Partial<Record<MutationKind, number>>;
  /** Length of a huge string (default 1 MiB). */
  hugeStringLength?: number;
  /** Levels of a deeply nested value (default 50,000). */
  nestingDepth?: number;
  /** Which frames may be damaged (default all); the others keep their place relative to each other. */
  isMutable?: (frame: unknown, index: number) => boolean;
}

export const DEFAULT_TYPE_FIELDS: readonly string[] = [
  'type',
  'method',
  'subtype',
  'event',
  'kind',
  'sessionUpdate',
  'stream',
  'state',
  'role',
];

export const DEFAULT_WEIGHTS: Readonly<Record<MutationKind, number>> = {
  'drop-field': 3,
  'wrong-type': 3,
  truncate: 2,
  'unknown-type': 2,
  'unknown-enum': 3,
  'extra-field': 1,
  'huge-string': 0.5,
  'deep-nesting': 0.5,
  duplicate: 2,
  reorder: 1.5,
  'drop-frame': 1,
  'cut-sequence': 0.5,
};

/** What one mutation did, enough to read a failure report. */
export interface Mutation {
  kind: MutationKind;
  /** Index in the INPUT sequence of the frame it touched. */
  frame: number;
  /** Where inside the frame ('params.item.type'); absent for sequence mutations. */
  path?: string;
  detail?: string;
}

export interface MutatedSequence {
  frames: unknown[];
  /** origins[i]: index in the input of the frame now at position i (duplicates share one). */
  origins: number[];
  mutations: Mutation[];
}

/** The value an unknown-type / unknown-enum mutation writes when it does not borrow a declared one. */
export const UNKNOWN_VALUE = 'reins_fuzz_unknown';
/**
 * Unknown values a lookup table answers anyway: an object literal inherits these names, so `TABLE[x]` and
 * `x in TABLE` find a function or an object where the translation expected nothing (fuzz seed 2821956756
 * found one such lookup; the rest of the class was found by reading).
 */
export const INHERITED_NAMES: readonly string[] = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

/** An unknown value: usually UNKNOWN_VALUE, a quarter of the time a name every object inherits. */
function unknownValue(random: Random): string {
  return random.chance(0.25) ? random.pick(INHERITED_NAMES) : UNKNOWN_VALUE;
}

// ---- building blocks --------------------------------------------------------------------------

const nestedCache = new Map<string, unknown>();

/** A value nested `depth` levels deep (objects, or arrays), built without recursion, frozen and shared. */
export function deeplyNested(depth: number, shape: 'object' | 'array' = 'object'): unknown {
  const key = `${shape}:${depth}`;
  const cached = nestedCache.get(key);
  if (cached !== undefined) return cached;
  let value: unknown = shape === 'object' ? { end: true } : [true];
  for (let level = 1; level < depth; level++) {
    value = Object.freeze(shape === 'object' ? { nested: value } : [value]);
  }
  nestedCache.set(key, value);
  return value;
}

const hugeCache = new Map<number, string>();

/** A string of `length` characters (shared: strings are immutable). */
export function hugeString(length: number): string {
  let text = hugeCache.get(length);
  if (text === undefined) {
    const unit = 'reins-fuzz-huge-string ';
    text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    hugeCache.set(length, text);
  }
  return text;
}

/** Freezes a value and everything under it (iteratively; stops at parts already frozen). */
export function freezeDeep<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) stack.push(child);
  }
  return value;
}

/** Nodes deeper than this are never walked, copied or changed (a deep-nesting value stays shared). */
const WALK_DEPTH = 64;
/** At most this many places are considered inside one frame. */
const MAX_SLOTS = 5000;

type Container = Record<string, unknown> | unknown[];
interface Slot {
  parent: Container;
  key: string | number;
  path: string;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** A mutable copy of the top WALK_DEPTH levels; deeper parts are shared (and frozen). */
function copyTop(value: unknown, depth = 0): unknown {
  if (!isContainer(value) || depth >= WALK_DEPTH) return value;
  if (Array.isArray(value)) return value.map((child) => copyTop(child, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = copyTop(child, depth + 1);
  return out;
}

function slotsOf(root: Container): Slot[] {
  const slots: Slot[] = [];
  const queue: { node: Container; path: string; depth: number }[] = [{ node: root, path: '', depth: 0 }];
  for (let head = 0; head < queue.length && slots.length < MAX_SLOTS; head++) {
    const { node, path, depth } = queue[head] as (typeof queue)[number];
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((child, index) => [index, child])
      : Object.entries(node);
    for (const [key, child] of entries) {
      const childPath = path === '' ? String(key) : `${path}.${key}`;
      slots.push({ parent: node, key, path: childPath });
      if (isContainer(child) && depth + 1 < WALK_DEPTH) queue.push({ node: child, path: childPath, depth: depth + 1 });
    }
  }
  return slots;
}

function read(slot: Slot): unknown {
  return (slot.parent as Record<string | number, unknown>)[slot.key];
}

function write(slot: Slot, value: unknown): void {
  (slot.parent as Record<string | number, unknown>)[slot.key] = value;
}

function remove(slot: Slot): void {
  if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
  else delete slot.parent[slot.key as string];
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Values of every JSON type, including the awkward ones (negative, huge, empty). */
const PALETTE: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -123456789,
  1.5,
  1e308,
  '',
  'reins-fuzz',
  [],
  [null],
  {},
  { reinsFuzz: 1 },
];

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (isContainer(value)) return Array.isArray(value) ? `[array of ${value.length}]` : '{object}';
  return String(value);
}

// ---- one frame ---------------------------------------------------------------------------------

interface Context {
  random: Random;
  typeFields: ReadonlySet<string>;
  enums: ReadonlyMap<string, readonly string[]>;
  hugeStringLength: number;
  nestingDepth: number;
}

/** Applies one in-frame mutation to a copy; undefined when this kind has nowhere to go in this frame. */
function mutateOne(
  frame: unknown,
  kind: FrameMutationKind,
  context: Context,
): { frame: unknown; path: string; detail: string } | undefined {
  const { random } = context;
  // A whole frame that is a scalar can only be replaced or cut.
  if (!isContainer(frame)) {
    if (kind === 'wrong-type') {
      const next = random.pick(PALETTE.filter((value) => typeOf(value) !== typeOf(frame)));
      return { frame: next, path: '', detail: `${show(frame)} -> ${show(next)}` };
    }
    if (kind === 'truncate' && typeof frame === 'string' && frame.length > 1) {
      const next = frame.slice(0, random.int(frame.length));
      return { frame: next, path: '', detail: `cut to ${next.length} of ${frame.length} characters` };
    }
    return undefined;
  }
  if (kind === 'truncate' && random.chance(0.2)) {
    // The line was cut: what arrives is the start of a JSON text, not a parsed value.
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch {
      return undefined;
    }
    if (text.length < 2) return undefined;
    const next = text.slice(0, 1 + random.int(text.length - 1));
    return { frame: next, path: '', detail: `whole frame cut to ${next.length} of ${text.length} characters of JSON` };
  }
  const copy = copyTop(frame) as Container;
  const slots = slotsOf(copy);
  const choose = (candidates: Slot[]): Slot | undefined =>
    candidates.length === 0 ? undefined : random.pick(candidates);
  switch (kind) {
    case 'drop-field': {
      const slot = choose(slots.filter((candidate) => !Array.isArray(candidate.parent)));
      if (!slot) return undefined;
      remove(slot);
      return { frame: copy, path: slot.path, detail: 'dropped' };
    }
    case 'wrong-type': {
      const slot = choose(slots);
      if (!slot) return undefined;
      const before = read(slot);
      const next = random.pick(PALETTE.filter((value) => typeOf(value) !== typeOf(before)));
      write(slot, next);
      return { frame: copy, path: slot.path, detail: `${show(before)} -> ${show(next)}` };
    }
    case 'truncate': {
      const slot = choose(
        slots.filter((candidate) => {
          const value = read(candidate);
          if (typeof value === 'string') return value.length > 0;
          if (Array.isArray(value)) return value.length > 0;
          return isContainer(value) && Object.keys(value).length > 0;
        }),
      );
      if (!slot) return undefined;
      const value = read(slot);
      if (typeof value === 'string') {
        write(slot, value.slice(0, random.int(value.length)));
        return { frame: copy, path: slot.path, detail: `string cut from ${value.length} characters` };
      }
      if (Array.isArray(value)) {
        const keep = random.int(value.length);
        write(slot, value.slice(0, keep));
        return { frame: copy, path: slot.path, detail: `array cut to ${keep} of ${value.length}` };
      }
      const entries = Object.entries(value as Record<string, unknown>);
      const keep = random.int(entries.length);
      write(slot, Object.fromEntries(entries.slice(0, keep)));
      return { frame: copy, path: slot.path, detail: `object cut to ${keep} of ${entries.length} fields` };
    }
    case 'unknown-type': {
      const slot = choose(
        slots.filter((candidate) => typeof candidate.key === 'string' && context.typeFields.has(candidate.key)),
      );
      if (!slot) return undefined;
      const before = read(slot);
      const next =
        typeof before === 'string' && random.chance(0.5) ? `${before}/${UNKNOWN_VALUE}` : unknownValue(random);
      write(slot, next);
      return { frame: copy, path: slot.path, detail: `${show(before)} -> ${show(next)}` };
    }
    case 'unknown-enum': {
      const slot = choose(
        slots.filter((candidate) => typeof candidate.key === 'string' && context.enums.has(candidate.key)),
      );
      if (!slot) return undefined;
      const before = read(slot);
      const declared = (context.enums.get(slot.key as string) ?? []).filter((value) => value !== before);
      // Half the time a value no version declares; otherwise one the wire declares for this key elsewhere.
      const next = declared.length > 0 && random.chance(0.5) ? random.pick(declared) : unknownValue(random);
      write(slot, next);
      return { frame: copy, path: slot.path, detail: `${show(before)} -> ${show(next)}` };
    }
    case 'extra-field': {
      const objects = [copy, ...slots.map(read)].filter(
        (value): value is Record<string, unknown> =>
          isContainer(value) && !Array.isArray(value) && !Object.isFrozen(value),
      );
      if (objects.length === 0) return undefined;
      const target = random.pick(objects);
      const next = random.pick(PALETTE);
      target.reinsFuzzExtra = next;
      return { frame: copy, path: 'reinsFuzzExtra', detail: `added ${show(next)}` };
    }
    case 'huge-string': {
      const strings = slots.filter((candidate) => typeof read(candidate) === 'string');
      const slot = choose(strings.length > 0 ? strings : slots);
      if (!slot) return undefined;
      write(slot, hugeString(context.hugeStringLength));
      return { frame: copy, path: slot.path, detail: `a string of ${context.hugeStringLength} characters` };
    }
    case 'deep-nesting': {
      const slot = choose(slots);
      if (!slot) return undefined;
      const shape = random.chance(0.5) ? 'object' : 'array';
      write(slot, deeplyNested(context.nestingDepth, shape));
      return { frame: copy, path: slot.path, detail: `an ${shape} nested ${context.nestingDepth} levels` };
    }
    default:
      return undefined;
  }
}

/** One in-frame mutation of a single frame (a copy); undefined when the kind does not apply to it. */
export function mutateFrame(
  frame: unknown,
  kind: FrameMutationKind,
  random: Random,
  options: MutationOptions = {},
): { frame: unknown; path: string; detail: string } | undefined {
  const result = mutateOne(frame, kind, contextOf(random, options));
  if (result) freezeDeep(result.frame);
  return result;
}

/** The lookup sets of the options' lists, built once per list (a fuzz run reuses its lists). */
const typeSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const enumMaps = new WeakMap<readonly EnumField[], ReadonlyMap<string, readonly string[]>>();
const NO_ENUMS: readonly EnumField[] = [];

function contextOf(random: Random, options: MutationOptions): Context {
  const typeList = options.typeFields ?? DEFAULT_TYPE_FIELDS;
  const enumList = options.enumFields ?? NO_ENUMS;
  let typeFields = typeSets.get(typeList);
  if (!typeFields) {
    typeFields = new Set(typeList);
    typeSets.set(typeList, typeFields);
  }
  let enums = enumMaps.get(enumList);
  if (!enums) {
    enums = new Map(enumList.map((field) => [field.key, field.values]));
    enumMaps.set(enumList, enums);
  }
  const sets = { typeFields, enums };
  return {
    random,
    ...sets,
    hugeStringLength: options.hugeStringLength ?? 1 << 20,
    nestingDepth: options.nestingDepth ?? 50_000,
  };
}

// ---- a sequence --------------------------------------------------------------------------------

/** Damages a copy of a frame sequence with 1..maxMutations mutations chosen by weight. */
export function mutateSequence(
  input: readonly unknown[],
  random: Random,
  options: MutationOptions = {},
): MutatedSequence {
  const context = contextOf(random, options);
  const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
  const kinds = MUTATION_KINDS.map((kind) => [kind, weights[kind]] as const);
  const isMutable = options.isMutable ?? (() => true);
  const mutableInput = new Set(input.flatMap((frame, index) => (isMutable(frame, index) ? [index] : [])));
  const frames = [...input];
  const origins = input.map((_, index) => index);
  const mutations: Mutation[] = [];
  const mutablePositions = () => origins.flatMap((origin, position) => (mutableInput.has(origin) ? [position] : []));

  const count = 1 + random.int(Math.max(1, options.maxMutations ?? 3));
  for (let done = 0, attempts = 0; done < count && attempts < count * 8; attempts++) {
    const positions = mutablePositions();
    if (positions.length === 0) break;
    const kind = random.weighted(kinds);
    const position = random.pick(positions);
    const origin = origins[position] as number;
    switch (kind) {
      case 'duplicate': {
        // Mostly right after the original (a re-sent line), sometimes later (a replayed one).
        const at = random.chance(0.7) ? position + 1 : position + 1 + random.int(frames.length - position);
        frames.splice(at, 0, frames[position]);
        origins.splice(at, 0, origin);
        mutations.push({ kind, frame: origin, detail: `copy at position ${at}` });
        break;
      }
      case 'reorder': {
        if (positions.length < 2) continue;
        const other = random.pick(positions.filter((candidate) => candidate !== position));
        [frames[position], frames[other]] = [frames[other], frames[position]];
        [origins[position], origins[other]] = [origins[other] as number, origin];
        mutations.push({ kind, frame: origin, detail: `swapped with frame ${origins[position]}` });
        break;
      }
      case 'drop-frame':
        frames.splice(position, 1);
        origins.splice(position, 1);
        mutations.push({ kind, frame: origin, detail: 'dropped' });
        break;
      case 'cut-sequence': {
        const lost = frames.length - position;
        frames.length = position;
        origins.length = position;
        mutations.push({ kind, frame: origin, detail: `this frame and the ${lost - 1} after it are lost` });
        break;
      }
      default: {
        const result = mutateOne(frames[position], kind, context);
        if (!result) continue;
        frames[position] = freezeDeep(result.frame);
        mutations.push({ kind, frame: origin, path: result.path, detail: result.detail });
      }
    }
    done++;
  }
  for (const frame of frames) freezeDeep(frame);
  return { frames, origins, mutations };
}

export function describeMutation(mutation: Mutation): string {
  const where = mutation.path ? ` at ${mutation.path}` : '';
  return `${mutation.kind} of frame ${mutation.frame}${where}${mutation.detail ? `: ${mutation.detail}` : ''}`;
}
