// What the fuzzer asserts about the events a translation produced. Before the stream sees a payload: it
// validates against ReinsEventSchema, and it does not start or complete an item a second time (the
// stream would repair both; a translator must not need it to). After: every emitted event validates and
// can be serialised, and the stream rules hold (conformance/invariants.ts). `CheckedEventStream` is a
// core SessionEventStream with those checks around it, for a fuzz driver that feeds a translator the way
// its adapter does.
import {
  type EmitMeta,
  type EventPayload,
  type EventStreamOptions,
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

/** Why an emitted event cannot be sent (schema or serialisation); undefined when it can. */
export function eventProblem(event: unknown): string | undefined {
  const problem = zodProblems(event);
  if (problem !== undefined) return `invalid event ${typeName(event)}: ${problem}`;
  try {
    if (typeof JSON.stringify(event) !== 'string') return `unserialisable ${typeName(event)}: no JSON text`;
  } catch (error) {
    return `unserialisable ${typeName(event)}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
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

/** A SessionEventStream that records every event and every problem the fuzzer asserts against. */
export class CheckedEventStream {
  readonly stream: SessionEventStream;
  readonly events: ReinsEvent[] = [];
  readonly problems: string[] = [];
  /** Item ids consumers saw start / complete (including the ones the stream closed at a turn's end). */
  private readonly started = new Set<string>();
  private readonly completed = new Set<string>();

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
        const problem = eventProblem(event);
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
    else if (
      payload.type === 'item.started' &&
      (this.started.has(payload.item.id) || this.completed.has(payload.item.id))
    )
      this.problems.push(`duplicate: item ${payload.item.id} started twice`);
    else if (payload.type === 'item.completed' && this.completed.has(payload.item.id))
      this.problems.push(`duplicate: item ${payload.item.id} completed twice`);
    this.stream.emit(payload, meta);
  }

  startTurn(input: TurnInput, meta: EmitMeta & { turnId?: string } = {}): string | undefined {
    return this.stream.startTurn(input, meta);
  }

  completeTurn(completion: Omit<PayloadOf<'turn.completed'>, 'type'>, meta: EmitMeta = {}): boolean {
    const problem = payloadProblem({ type: 'turn.completed', ...completion });
    if (problem) this.problems.push(problem);
    return this.stream.completeTurn(completion, meta);
  }

  /** Ends the session (a running turn gets its terminal) and returns every problem found. */
  finish(): string[] {
    if (!this.stream.isClosed) this.stream.close('process_exited');
    return [...this.problems, ...fuzzStreamViolations(this.events)];
  }
}
