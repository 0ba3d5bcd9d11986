// One session as the console shows it: its transcript (the event reducer) and its optimistic
// bubbles (the outbox), with one snapshot for views that changes at most once per animation frame
// however fast events arrive. Views subscribe (React's useSyncExternalStore fits) and read
// `snapshot()`, which is the same object until something changed. While the log of a session is
// being replayed (an open, a reload, a reconnect) views hear about it at most every
// CATCH_UP_PUBLISH_MS and at once when it is caught up: a render per animation frame of a history
// still arriving cost more than the history itself (each render re-lays out the list), and it
// slowed the arrival too (the page reads the socket between renders).
import type { ErrorInfo, ReinsEvent, SendResult } from '@reins/core';
import { animationFrameScheduler, FrameCoalescer, type FrameScheduler } from './frame-scheduler.js';
import { type DeliveryMode, newClientMessageId, Outbox, type PendingMessage } from './outbox.js';
import { Transcript, type TranscriptView } from './transcript.js';

export interface SessionSnapshot extends TranscriptView {
  /** Messages sent from this page whose user_message item has not arrived yet. */
  pending: PendingMessage[];
}

/** How often views hear about a replay still arriving (a long one still shows progress). */
export const CATCH_UP_PUBLISH_MS = 1_000;

const catchUpScheduler: FrameScheduler = (callback) => {
  setTimeout(callback, CATCH_UP_PUBLISH_MS);
};

export class SessionModel {
  readonly transcript = new Transcript();
  private readonly outbox = new Outbox();
  private readonly listeners = new Set<() => void>();
  private readonly coalescer: FrameCoalescer;
  private readonly catchUpCoalescer: FrameCoalescer;
  private current: SessionSnapshot | undefined;
  /** The replay being received ends at this seq (0: none). */
  private catchUpSeq = 0;

  constructor(
    readonly sessionId: string,
    schedule: FrameScheduler = animationFrameScheduler,
    catchUpSchedule: FrameScheduler = catchUpScheduler,
  ) {
    this.coalescer = new FrameCoalescer(() => this.publish(), schedule);
    this.catchUpCoalescer = new FrameCoalescer(() => this.publish(), catchUpSchedule);
  }

  /** An attach started whose replay ends at `seq` (the subscribe answer's lastSeq). */
  catchingUp(seq: number): void {
    this.catchUpSeq = seq;
  }

  /** True while a replay is still arriving. */
  get isCatchingUp(): boolean {
    return this.transcript.lastSeq < this.catchUpSeq;
  }

  /** seq of the last event applied: what a re-attach passes as afterSeq. */
  get lastSeq(): number {
    return this.transcript.lastSeq;
  }

  receive(event: ReinsEvent): void {
    this.receiveAll([event]);
  }

  /** A run of events (a replay batch) in one reducer pass and one change for views. */
  receiveAll(events: readonly ReinsEvent[]): void {
    const applied = this.transcript.applyAll(events);
    if (applied.length === 0) return;
    for (const event of applied) {
      if (
        (event.type === 'item.started' || event.type === 'item.completed') &&
        event.item.kind === 'user_message' &&
        event.item.clientMessageId
      ) {
        this.outbox.matched(event.item.clientMessageId);
      }
    }
    // Events of a replay still arriving wait for the slow timer; anything else (live events, the
    // user's own actions) shows in the next frame.
    if (this.isCatchingUp && this.listeners.size > 0) this.catchUpCoalescer.request();
    else this.changed();
  }

  /** A bubble for a message about to be sent; pass its clientMessageId with session/send. */
  beginSend(text: string, mode: DeliveryMode, clientMessageId = newClientMessageId()): PendingMessage {
    const message = this.outbox.add({ clientMessageId, text, mode });
    this.changed();
    return message;
  }

  sendSucceeded(clientMessageId: string, result: SendResult): void {
    this.transcript.noteDelivery(clientMessageId, result.delivery);
    // Its item may have come before the answer: then there is no bubble left to update.
    if (!this.transcript.hasClientMessage(clientMessageId)) this.outbox.sent(clientMessageId, result);
    this.changed();
  }

  sendFailed(clientMessageId: string, error: ErrorInfo): void {
    this.outbox.failed(clientMessageId, error);
    this.changed();
  }

  dismiss(clientMessageId: string): void {
    this.outbox.dismiss(clientMessageId);
    this.changed();
  }

  /** A line of the console's own in the transcript (how a setting applied, an action that failed). */
  note(text: string, tone: 'info' | 'error' = 'info'): void {
    this.transcript.note(text, tone);
    this.changed();
  }

  /** session/revert answered: the reverted turns' checkpoints say so, and a line says what went back. */
  reverted(turnId: string, text: string): void {
    this.transcript.markReverted(turnId);
    this.note(text);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): SessionSnapshot => {
    this.current ??= { ...this.transcript.view(), pending: this.outbox.view() };
    return this.current;
  };

  /**
   * A session followed off screen (no view subscribed) schedules nothing: its next snapshot() is
   * simply fresh. Eight followed sessions streaming would otherwise each ask for every frame.
   */
  private changed(): void {
    if (this.listeners.size === 0) this.current = undefined;
    else this.coalescer.request();
  }

  private publish(): void {
    this.current = undefined;
    for (const listener of [...this.listeners]) listener();
  }
}
