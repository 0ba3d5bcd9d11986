// The helper every adapter emits through. It owns the envelope (seq with no gaps, harness,
// session id, turn id, time, native frame), and the turn rules of docs/architecture/contract.md:
// exactly one `turn.completed` per turn, and items the harness left open are closed when the turn
// ends. Misuse (a second terminal, an event after close) is rejected and recorded, never emitted.
// Every event is checked (event-guard.ts) before it gets its seq: nothing invalid or unserialisable
// reaches a consumer, a duplicated item start or completion becomes a passthrough, and the first
// frame of each kind Reins did not understand brings one warning notice.
import { AsyncQueue } from './async-queue.js';
import type { ErrorInfo } from './errors.js';
import {
  isSerialisable,
  NativeFrameCheck,
  replacementPayload,
  schemaProblem,
  truncateDeep,
  truncatedNative,
  truncatedValue,
  type ValueMeasure,
} from './event-guard.js';
import { provenValid } from './event-proof.js';
import type { EventPayload, NativeFrame, PassthroughReason, PayloadOf, ReinsEvent, TurnOutcome } from './events.js';
import type { Item, ItemStatus } from './items.js';
import type { TurnInput } from './spec.js';

export interface EventStreamOptions {
  harness: string;
  sessionId: string;
  /** Keep the native frame on each event (default true). Passthrough events always keep it. */
  keepNative?: boolean;
  now?: () => number;
  highWaterMark?: number;
  /** Observes every emitted event synchronously (logging, evidence, tests). */
  onEvent?: (event: ReinsEvent) => void;
}

export interface EmitMeta {
  native?: NativeFrame;
  parentItemId?: string;
  /** Receive time of the native frame; defaults to now. */
  at?: number;
  /**
   * Background work (docs/architecture/contract.md, "Events"): the event belongs to no turn (turnId
   * null) even while one runs, and an item it starts is never closed by a turn's end.
   */
  background?: boolean;
  /** The turn the event is about when that turn has ended already (a `checkpoint` after its terminal). */
  turnId?: string;
}

type TurnCompletion = Omit<PayloadOf<'turn.completed'>, 'type'>;

/** The `events` of every SessionEventStream in this process (isGuardedEvents). */
const guardedIterables = new WeakSet<object>();

/**
 * True when `events` is a SessionEventStream's own `events`, as every in-process harness session hands
 * them out: each of its events passed the event guard (ReinsEventSchema and serialisability) in this
 * process before it got its seq, so a consumer that checks every event of any session it is given (a
 * bridge) need not check these again. Events from elsewhere (a daemon's socket, a Harness written
 * outside Reins) are not vouched for.
 */
export function isGuardedEvents(events: AsyncIterable<unknown>): boolean {
  return guardedIterables.has(events);
}

export class SessionEventStream {
  private readonly queue: AsyncQueue<ReinsEvent>;
  private readonly options: EventStreamOptions;
  private readonly now: () => number;
  private nextSeq = 1;
  private turnCounter = 0;
  private currentTurn: string | null = null;
  private closed = false;
  /** Items started and not yet completed in the current turn, with the text their deltas streamed. */
  private readonly openItems = new Map<string, OpenItem>();
  /** Items started outside a turn (background work) and not yet completed. */
  private readonly openOutside = new Map<string, Item>();
  /** Ids of recently completed items, to turn a repeated start or completion into a passthrough. */
  private readonly completedItems = new RecentIds(4096);
  /** `reason:method` pairs already warned about. */
  private readonly warned = new Set<string>();
  private readonly frames = new NativeFrameCheck();
  private warnedTruncation = false;
  /** Why calls were rejected, for diagnostics and tests. */
  readonly misuse: string[] = [];
  /** Events the guard had to repair or replace (each also in `misuse`). */
  repaired = 0;

  constructor(options: EventStreamOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.queue = new AsyncQueue(options.highWaterMark);
    guardedIterables.add(this.queue);
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.queue;
  }

  get activeTurnId(): string | null {
    return this.currentTurn;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves when the consumer has caught up (see AsyncQueue.whenDrained). */
  whenDrained(): Promise<void> {
    return this.queue.whenDrained();
  }

  /** Starts a turn; returns its id, or undefined when a turn is already running (rejected). */
  startTurn(input: TurnInput, meta: EmitMeta & { turnId?: string } = {}): string | undefined {
    if (this.currentTurn !== null) {
      return this.reject(`turn.started while turn ${this.currentTurn} is still running`);
    }
    if (this.closed) return this.reject('turn.started after close');
    this.turnCounter++;
    const turnId = meta.turnId ?? `turn_${this.turnCounter}`;
    this.currentTurn = turnId;
    this.openItems.clear();
    this.write({ type: 'turn.started', input }, meta);
    return turnId;
  }

  /**
   * Ends the current turn with its one terminal. Open items are closed first with a status that
   * follows the outcome. Returns false (and emits nothing) when no turn is running.
   */
  completeTurn(completion: TurnCompletion, meta: EmitMeta = {}): boolean {
    if (this.currentTurn === null) {
      this.reject(`turn.completed (${completion.outcome.status}) with no running turn`);
      return false;
    }
    for (const open of [...this.openItems.values()]) {
      this.write({ type: 'item.completed', item: closeItem(withStreamedText(open), completion.outcome) }, {});
      this.completedItems.add(open.item.id);
    }
    this.openItems.clear();
    this.write({ type: 'turn.completed', ...completion }, meta);
    this.currentTurn = null;
    return true;
  }

  /**
   * An open item of the running turn becomes background work that the harness keeps doing after the
   * turn (docs/architecture/contract.md, "Events"): the turn's end leaves it open, and it completes
   * later outside any turn. Returns false when no such item is open in the running turn.
   */
  keepAfterTurn(itemId: string): boolean {
    const open = this.openItems.get(itemId);
    if (!open) return false;
    this.openItems.delete(itemId);
    this.openOutside.set(itemId, withStreamedText(open));
    return true;
  }

  /** Emits any other event. Returns it, or undefined when it was rejected. */
  emit(payload: EventPayload, meta: EmitMeta = {}): ReinsEvent | undefined {
    switch (payload.type) {
      case 'turn.started':
        this.startTurn(payload.input, meta);
        return undefined;
      case 'turn.completed': {
        const { type: _type, ...completion } = payload;
        this.completeTurn(completion, meta);
        return undefined;
      }
      case 'item.started':
      case 'item.completed': {
        const duplicate = this.isDuplicate(payload.type, payload.item?.id);
        if (duplicate) {
          return this.write({ type: 'passthrough', frame: meta.native?.frame ?? payload, reason: 'duplicate' }, meta);
        }
        break;
      }
      default:
        break;
    }
    const event = this.write(payload, meta);
    if (event) this.track(event, meta.background === true);
    return event;
  }

  private isDuplicate(type: 'item.started' | 'item.completed', id: unknown): boolean {
    if (typeof id !== 'string') return false; // the schema check replaces it
    if (this.completedItems.has(id)) return true;
    return type === 'item.started' && (this.openItems.has(id) || this.openOutside.has(id));
  }

  /** Keeps the open-item bookkeeping in step with what was actually written. */
  private track(event: ReinsEvent, background: boolean): void {
    switch (event.type) {
      case 'item.started':
        if (this.currentTurn !== null && !background) {
          this.openItems.set(event.item.id, { item: event.item, streamed: undefined });
        } else this.openOutside.set(event.item.id, event.item);
        break;
      case 'item.delta': {
        // Pieces, joined only if the stream itself has to close the item: a copy of the item and a
        // longer string per delta cost more than the delta (bench/README.md, figure 4).
        const open = this.openItems.get(event.itemId);
        if (!open || event.kind === 'tool_input') break;
        const kind = open.item.kind;
        if (kind === 'agent_message' || kind === 'reasoning') {
          open.streamed ??= new StreamedText();
          open.streamed.add(event.text);
        }
        break;
      }
      case 'item.completed':
        this.openItems.delete(event.item.id);
        this.openOutside.delete(event.item.id);
        this.completedItems.add(event.item.id);
        break;
      default:
        break;
    }
  }

  /**
   * Ends the session: a running turn is completed (cancelled when the close was requested,
   * failed otherwise), so is background work still open, then `session.closed` is emitted and the
   * stream ends.
   */
  close(reason: PayloadOf<'session.closed'>['reason'], error?: ErrorInfo): void {
    if (this.closed) return;
    if (this.currentTurn !== null) {
      const outcome: TurnOutcome =
        reason === 'requested'
          ? { status: 'cancelled' }
          : {
              status: 'failed',
              error: error ?? { code: 'process_exited', message: 'The harness process ended during the turn.' },
            };
      this.completeTurn({ outcome });
    }
    // Background work ends with the session.
    const status: ItemStatus = reason === 'requested' ? 'cancelled' : 'failed';
    for (const item of this.openOutside.values()) this.write({ type: 'item.completed', item: { ...item, status } }, {});
    this.openOutside.clear();
    this.write({ type: 'session.closed', reason, ...(error ? { error } : {}) }, {});
    this.closed = true;
    this.queue.end();
  }

  private write(payload: EventPayload, meta: EmitMeta): ReinsEvent | undefined {
    if (this.closed) return this.reject(`${payload.type} after session.closed`);
    let native =
      meta.native && (this.options.keepNative !== false || payload.type === 'passthrough') ? meta.native : undefined;
    let nativeMeasure: ValueMeasure | undefined;
    if (native) {
      const checked = this.frames.safe(native);
      if (checked.truncated) this.note(`native frame of ${payload.type} truncated`);
      native = checked.native;
      nativeMeasure = checked.measure;
    }
    let event = this.stamp(payload, meta, native);
    // The event types a turn is made of are proven valid field by field (event-proof.ts); anything it
    // cannot prove goes through the schema and the serialisability walk.
    let problem = provenValid(event, native ? nativeMeasure : undefined) ? undefined : eventProblem(event);
    let truncated = false;
    if (problem !== undefined && !isSerialisable(payload)) {
      // Too deep or not JSON: cut the offending values with markers and keep the event what it is
      // (a terminal stays a terminal, an item start keeps its completion's pair).
      const cut = this.stamp(truncateDeep(payload) as EventPayload, meta, native);
      if (eventProblem(cut) === undefined) {
        this.note(`${payload.type} truncated: ${problem}`);
        event = cut;
        problem = undefined;
        truncated = true;
      }
    }
    if (problem !== undefined && native) {
      // The native copy may be what fails (with the envelope around it): the event keeps its type
      // and a marker stands for the copy, so no terminal or item end is lost to its frame.
      const marked = truncatedNative(native, `the event with its native frame failed the guard (${problem})`);
      const ownPayloadOk = isSerialisable(payload);
      const cut = this.stamp(ownPayloadOk ? payload : (truncateDeep(payload) as EventPayload), meta, marked);
      if (eventProblem(cut) === undefined) {
        this.note(`native frame of ${payload.type} truncated: ${problem}`);
        event = cut;
        native = marked;
        problem = undefined;
        truncated = !ownPayloadOk;
      }
    }
    if (problem !== undefined) {
      this.note(`${payload.type} replaced: ${problem}`);
      const replacement = replacementPayload(payload, native, problem);
      event = this.stamp(replacement, meta, native);
      problem = eventProblem(event);
      if (problem !== undefined) {
        // Only a passthrough whose own frame is the problem gets here: keep its slot, drop the frame.
        event = this.stamp({ type: 'passthrough', frame: truncatedValue(problem), reason: 'invalid_event' }, meta);
      }
    }
    if (event.native !== undefined) this.frames.carried(event.native.frame, event.seq);
    this.nextSeq++;
    this.options.onEvent?.(event);
    this.queue.push(event);
    if (event.type === 'passthrough' && event.reason !== undefined) this.warnOnce(event.reason, event.native);
    if (truncated && !this.warnedTruncation) {
      this.warnedTruncation = true;
      this.write(
        {
          type: 'notice',
          kind: 'warning',
          message: `Reins cut values nested too deep to serialise from a ${payload.type} event (marked reinsTruncated).`,
          data: { reason: 'truncated', type: payload.type },
        },
        {},
      );
    }
    return event;
  }

  private stamp(payload: EventPayload, meta: EmitMeta, native?: NativeFrame): ReinsEvent {
    // A copy and assignments rather than `{ ...payload, seq, ... }`: on Node 20 a spread copy that gains
    // keys costs microseconds per event (bench/README.md, figure 4), this a tenth of one; the same keys
    // in the same order. An own `__proto__` key takes the spread, which defines it (Object.assign would
    // set the prototype).
    if (Object.hasOwn(payload, '__proto__')) return this.stampBySpread(payload, meta, native);
    const event = Object.assign({}, payload) as Record<string, unknown>;
    event.seq = this.nextSeq;
    event.harness = this.options.harness;
    event.sessionId = this.options.sessionId;
    event.turnId = meta.background ? null : (meta.turnId ?? this.currentTurn);
    event.at = meta.at ?? this.now();
    if (meta.parentItemId !== undefined) event.parentItemId = meta.parentItemId;
    if (native) event.native = native;
    return event as unknown as ReinsEvent;
  }

  private stampBySpread(payload: EventPayload, meta: EmitMeta, native?: NativeFrame): ReinsEvent {
    return {
      ...payload,
      seq: this.nextSeq,
      harness: this.options.harness,
      sessionId: this.options.sessionId,
      turnId: meta.background ? null : (meta.turnId ?? this.currentTurn),
      at: meta.at ?? this.now(),
      ...(meta.parentItemId !== undefined ? { parentItemId: meta.parentItemId } : {}),
      ...(native ? { native } : {}),
    } as ReinsEvent;
  }

  /** One warning per reason and native method per session: a user learns once that Reins fell short. */
  private warnOnce(reason: PassthroughReason, native: NativeFrame | undefined): void {
    const method = native?.method ?? '(no method)';
    const key = `${reason}:${native?.source ?? ''}:${method}`;
    if (this.warned.has(key) || this.warned.size >= 1000) return;
    this.warned.add(key);
    const source = native?.source ?? this.options.harness;
    this.write(
      {
        type: 'notice',
        kind: 'warning',
        message: `Reins passed a ${source} frame (${method}) through untranslated: ${REASON_TEXT[reason]}.`,
        data: { reason, method, source },
      },
      {},
    );
  }

  private note(reason: string): void {
    this.repaired++;
    if (this.misuse.length < 1000) this.misuse.push(reason);
  }

  private reject(reason: string): undefined {
    this.misuse.push(reason);
    return undefined;
  }
}

/** Why an event fails the schema or serialisation, or undefined when it passes both. */
function eventProblem(event: ReinsEvent): string | undefined {
  return schemaProblem(event) ?? (isSerialisable(event) ? undefined : 'it cannot be serialised');
}

/** An item started in the current turn and not yet completed, and the texts its deltas streamed since. */
interface OpenItem {
  item: Item;
  streamed: StreamedText | undefined;
}

/**
 * The texts of an open item's deltas, every 64 joined into one string: one by one, the deltas of a
 * long message would each survive young-generation GCs (and be copied by each) until the item ends.
 */
class StreamedText {
  private readonly joined: string[] = [];
  private readonly recent: string[] = [];

  add(text: string): void {
    this.recent.push(text);
    if (this.recent.length === 64) {
      this.joined.push(this.recent.join(''));
      this.recent.length = 0;
    }
  }

  toString(): string {
    return this.joined.join('') + this.recent.join('');
  }
}

/** The open item with the text of its start and of every delta since. */
function withStreamedText(open: OpenItem): Item {
  const { item, streamed } = open;
  if (!streamed || (item.kind !== 'agent_message' && item.kind !== 'reasoning')) return item;
  return { ...item, text: item.text + streamed.toString() };
}

/** The status an item left open gets when its turn ends with this outcome. */
function closedStatus(item: Item, outcome: TurnOutcome): ItemStatus {
  if (outcome.status === 'cancelled') return 'cancelled';
  if (outcome.status === 'failed') return 'failed';
  // The turn completed but the harness never settled this item: a tool call that reported no
  // result did not complete; text items keep what streamed.
  return item.kind === 'tool_call' ? 'cancelled' : 'completed';
}

function closeItem(item: Item, outcome: TurnOutcome): Item {
  return { ...item, status: closedStatus(item, outcome) };
}

const REASON_TEXT: Record<PassthroughReason, string> = {
  unknown: 'its type or a value in it is unknown to this adapter (a newer CLI?)',
  unparsable: 'it is not a frame of the protocol',
  untranslatable: 'translating it failed',
  invalid_event: 'its translation broke the Reins event schema',
  duplicate: 'the harness sent the same item event twice',
};

/** A set that remembers only its newest `capacity` entries (bounded memory per session). */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity: number) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
}
