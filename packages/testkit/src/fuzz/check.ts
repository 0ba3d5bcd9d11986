// What the fuzzer asserts about the events a translation produced. Before the stream sees a payload: it
// validates against ReinsEventSchema, it serialises (a passthrough's native frame excepted), and it does
// not start or complete an item a second time (the stream would repair all three; a translator must not
// need it to). After: every emitted event validates and
// can be serialised, and the stream rules hold (conformance/invariants.ts). `CheckedEventStream` is a
// core SessionEventStream with those checks around it, for a fuzz driver that feeds a translator the way
// its adapter does.
import {
  type EmitMeta,
  type EventPayload,
  type EventStreamOptions,
  isSerialisable,
  type PayloadOf,
  type ReinsEvent,
  ReinsEventSchema,
  SessionEventStream,
  type TurnInput,
} from '@reins/core';
import { streamViolations } from '../conformance/invariants.js';

const ENVELOPE = { seq: 1, harness: 'fuzz', sessionId: 'fuzz', turnId: null, at: 0 };

function zodProblems(value: unknown): string | undefined {
  const parsed = ReinsEventSchema.safeParse(value);
  if (parsed.success) return undefined;
  return parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

function typeName(payload: unknown): string {
  const type = (payload as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : typeof payload;
}

/** Why a payload (an event without its envelope) is not a valid Reins event; undefined when it is. */
export function payloadProblem(payload: unknown): string | undefined {
  const problem = zodProblems({ ...ENVELOPE, ...(payload as object) });
  return problem === undefined ? undefined : `invalid payload ${typeName(payload)}: ${problem}`;
}

/**
 * Why JSON.stringify would not write a value as the same data; undefined when it would. Strings and numbers
 * always write, so only the shape is walked (iteratively, so a hostile value cannot overflow this stack):
 * a value nested deeper than DEEP is handed to JSON.stringify itself for the verdict.
 */
function writes(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    const type = typeof node;
    if (type === 'bigint' || type === 'function' || type === 'symbol') return `a ${type} is not JSON`;
    if (type !== 'object' || node === null) continue;
    if (depth > DEEP) return stringifyProblem(value) ?? undefined;
    for (const child of Array.isArray(node) ? node : Object.values(node as object)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Deeper than this the walk asks JSON.stringify (V8 writes a few thousand levels before its stack ends). */
const DEEP = 500;

function stringifyProblem(value: unknown): string | undefined {
  try {
    return typeof JSON.stringify(value) === 'string' ? undefined : 'no JSON text';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Why an emitted event cannot be sent (schema or serialisation); undefined when it can. `natives` caches
 * the verdict per native frame object (one frame often yields several events; the stream shares it).
 */
export function eventProblem(event: unknown, natives?: WeakMap<object, string | undefined>): string | undefined {
  const problem = zodProblems(event);
  if (problem !== undefined) return `invalid event ${typeName(event)}: ${problem}`;
  return serialisationProblem(event, natives);
}

function serialisationProblem(event: unknown, natives?: WeakMap<object, string | undefined>): string | undefined {
  const record = (event ?? {}) as { native?: unknown; frame?: unknown; type?: unknown };
  // The native frame (and a passthrough's frame, the same object) is shared by several events: written
  // once per object; the rest of the event every time.
  const shared = [record.native, record.type === 'passthrough' ? record.frame : undefined].filter(
    (value): value is object => typeof value === 'object' && value !== null,
  );
  const rest =
    shared.length === 0
      ? event
      : { ...record, native: undefined, ...(record.type === 'passthrough' ? { frame: null } : {}) };
  let problem = writes(rest);
  for (const value of shared) {
    if (problem !== undefined) break;
    if (natives?.has(value)) problem = natives.get(value);
    else {
      problem = writes(value);
      natives?.set(value, problem);
    }
  }
  return problem === undefined ? undefined : `unserialisable ${typeName(event)}: ${problem}`;
}

/**
 * Stream rules a fuzzed translation must keep. "assistant text repeated" is left out: a native frame
 * sent twice with no id to tell the copies apart looks exactly like the model saying it twice.
 */
export function fuzzStreamViolations(events: readonly ReinsEvent[]): string[] {
  return streamViolations(events, { settled: true })
    .filter((problem) => !problem.includes('assistant text repeated'))
    .map((problem) => `invariant: ${problem}`);
}

const shortId = (id: string) => (id.length > 60 ? `${id.slice(0, 60)}…` : id);

/** A SessionEventStream that records every event and every problem the fuzzer asserts against. */
export class CheckedEventStream {
  readonly stream: SessionEventStream;
  readonly events: ReinsEvent[] = [];
  readonly problems: string[] = [];
  /** Item ids consumers saw start / complete (including the ones the stream closed at a turn's end). */
  private readonly started = new Set<string>();
  private readonly completed = new Set<string>();
  private readonly natives = new WeakMap<object, string | undefined>();

  constructor(options: Partial<EventStreamOptions> = {}) {
    let clock = 0;
    this.stream = new SessionEventStream({
      harness: 'fuzz',
      sessionId: 'fuzz-session',
      // Deterministic time; the envelope's `at` is not what is under test.
      now: () => ++clock,
      highWaterMark: Number.MAX_SAFE_INTEGER,
      ...options,
      onEvent: (event) => {
        this.events.push(event);
        if (event.type === 'item.started') this.started.add(event.item.id);
        if (event.type === 'item.completed') this.completed.add(event.item.id);
        // The stream checks every event against the schema itself; what it cannot vouch for by its own
        // check is that JSON.stringify really writes the event, so that is asserted here.
        const problem = serialisationProblem(event, this.natives);
        if (problem) this.problems.push(problem);
        options.onEvent?.(event);
      },
    });
  }

  get activeTurnId(): string | null {
    return this.stream.activeTurnId;
  }

  get isClosed(): boolean {
    return this.stream.isClosed;
  }

  /** Checks a translator's payload, then hands it to the stream as an adapter would. */
  emit(payload: EventPayload, meta: EmitMeta = {}): void {
    const problem = payloadProblem(payload);
    if (problem) this.problems.push(problem);
    // A passthrough carries the native frame, which the stream truncates when it must; anything else
    // the translation builds must serialise as it is (the stream would have to replace the whole event).
    else if (payload.type !== 'passthrough' && !isSerialisable(payload))
      this.problems.push(`unserialisable payload ${payload.type}: a value nests too deep to be sent`);
    else if (
      payload.type === 'item.started' &&
      (this.started.has(payload.item.id) || this.completed.has(payload.item.id))
    )
      this.problems.push(`duplicate: item ${shortId(payload.item.id)} started twice`);
    else if (payload.type === 'item.completed' && this.completed.has(payload.item.id))
      this.problems.push(`duplicate: item ${shortId(payload.item.id)} completed twice`);
    this.stream.emit(payload, meta);
  }

  startTurn(input: TurnInput, meta: EmitMeta & { turnId?: string } = {}): string | undefined {
    return this.stream.startTurn(input, meta);
  }

  completeTurn(completion: Omit<PayloadOf<'turn.completed'>, 'type'>, meta: EmitMeta = {}): boolean {
    const payload = { type: 'turn.completed' as const, ...completion };
    const problem = payloadProblem(payload);
    if (problem) this.problems.push(problem);
    else if (!isSerialisable(payload)) {
      this.problems.push('unserialisable payload turn.completed: a value nests too deep to be sent');
    }
    return this.stream.completeTurn(completion, meta);
  }

  /** Ends the session (a running turn gets its terminal) and returns every problem found. */
  finish(): string[] {
    if (!this.stream.isClosed) this.stream.close('process_exited');
    return [...this.problems, ...fuzzStreamViolations(this.events)];
  }
}
