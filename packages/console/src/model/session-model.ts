// One session as the console shows it: its transcript (the event reducer) and its optimistic
// bubbles (the outbox), with one snapshot for views that changes at most once per animation frame
// however fast events arrive. Views subscribe (React's useSyncExternalStore fits) and read
// `snapshot()`, which is the same object until something changed.
import type { ErrorInfo, ReinsEvent, SendResult } from '@reins/core';
import { animationFrameScheduler, FrameCoalescer, type FrameScheduler } from './frame-scheduler.js';
import { type DeliveryMode, newClientMessageId, Outbox, type PendingMessage } from './outbox.js';
import { Transcript, type TranscriptView } from './transcript.js';

export interface SessionSnapshot extends TranscriptView {
  /** Messages sent from this page whose user_message item has not arrived yet. */
  pending: PendingMessage[];
}

export class SessionModel {
  readonly transcript = new Transcript();
  private readonly outbox = new Outbox();
  private readonly listeners = new Set<() => void>();
  private readonly coalescer: FrameCoalescer;
  private current: SessionSnapshot | undefined;

  constructor(
    readonly sessionId: string,
    schedule: FrameScheduler = animationFrameScheduler,
  ) {
    this.coalescer = new FrameCoalescer(() => this.publish(), schedule);
  }

  /** seq of the last event applied: what a re-attach passes as afterSeq. */
  get lastSeq(): number {
    return this.transcript.lastSeq;
  }

  receive(event: ReinsEvent): void {
    if (!this.transcript.apply(event)) return;
    if (
      (event.type === 'item.started' || event.type === 'item.completed') &&
      event.item.kind === 'user_message' &&
      event.item.clientMessageId
    ) {
      this.outbox.matched(event.item.clientMessageId);
    }
    this.changed();
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

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): SessionSnapshot => {
    this.current ??= { ...this.transcript.view(), pending: this.outbox.view() };
    return this.current;
  };

  private changed(): void {
    this.coalescer.request();
  }

  private publish(): void {
    this.current = undefined;
    for (const listener of [...this.listeners]) listener();
  }
}
