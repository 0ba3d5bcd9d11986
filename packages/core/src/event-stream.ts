// The helper every adapter emits through. It owns the envelope (seq with no gaps, harness,
// session id, turn id, time, native frame), and the turn rules of DESIGN.md: exactly one
// `turn.completed` per turn, and items the harness left open are closed when the turn ends.
// Misuse (a second terminal, an event after close) is rejected and recorded, never emitted.
import { AsyncQueue } from './async-queue.js';
import type { ErrorInfo } from './errors.js';
import type { EventPayload, NativeFrame, PayloadOf, ReinsEvent, TurnOutcome } from './events.js';
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
}

type TurnCompletion = Omit<PayloadOf<'turn.completed'>, 'type'>;

export class SessionEventStream {
  private readonly queue: AsyncQueue<ReinsEvent>;
  private readonly options: EventStreamOptions;
  private readonly now: () => number;
  private nextSeq = 1;
  private turnCounter = 0;
  private currentTurn: string | null = null;
  private closed = false;
  /** Items started and not yet completed in the current turn, with text gathered from deltas. */
  private readonly openItems = new Map<string, Item>();
  /** Why calls were rejected, for diagnostics and tests. */
  readonly misuse: string[] = [];

  constructor(options: EventStreamOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.queue = new AsyncQueue(options.highWaterMark);
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
    for (const item of [...this.openItems.values()]) {
      this.write({ type: 'item.completed', item: closeItem(item, completion.outcome) }, {});
    }
    this.openItems.clear();
    this.write({ type: 'turn.completed', ...completion }, meta);
    this.currentTurn = null;
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
        if (this.currentTurn !== null) this.openItems.set(payload.item.id, payload.item);
        break;
      case 'item.delta': {
        const open = this.openItems.get(payload.itemId);
        if (open && (open.kind === 'agent_message' || open.kind === 'reasoning') && payload.kind !== 'tool_input') {
          this.openItems.set(open.id, { ...open, text: open.text + payload.text });
        }
        break;
      }
      case 'item.completed':
        this.openItems.delete(payload.item.id);
        break;
      default:
        break;
    }
    return this.write(payload, meta);
  }

  /**
   * Ends the session: a running turn is completed (cancelled when the close was requested,
   * failed otherwise), then `session.closed` is emitted and the stream ends.
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
    this.write({ type: 'session.closed', reason, ...(error ? { error } : {}) }, {});
    this.closed = true;
    this.queue.end();
  }

  private write(payload: EventPayload, meta: EmitMeta): ReinsEvent | undefined {
    if (this.closed) return this.reject(`${payload.type} after session.closed`);
    const event = {
      ...payload,
      seq: this.nextSeq++,
      harness: this.options.harness,
      sessionId: this.options.sessionId,
      turnId: this.currentTurn,
      at: meta.at ?? this.now(),
      ...(meta.parentItemId !== undefined ? { parentItemId: meta.parentItemId } : {}),
      ...(meta.native && (this.options.keepNative !== false || payload.type === 'passthrough')
        ? { native: meta.native }
        : {}),
    } as ReinsEvent;
    this.options.onEvent?.(event);
    this.queue.push(event);
    return event;
  }

  private reject(reason: string): undefined {
    this.misuse.push(reason);
    return undefined;
  }
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
