// Optimistic bubbles: a message the user sent shows at once, before the daemon answers. Each one
// carries a clientMessageId that goes out with session/send; the turn's user_message item carries
// it back (docs/architecture/daemon.md), and then the item takes the bubble's place, so a message
// is never shown twice. A send the daemon refused stays, marked failed with the daemon's error.
import type { ErrorInfo, SendResult } from '@reins/core';

export type DeliveryMode = 'queue' | 'steer';

export interface PendingMessage {
  clientMessageId: string;
  text: string;
  mode: DeliveryMode;
  state: 'sending' | 'sent' | 'failed';
  /** What the daemon did with it, once it answered. */
  delivery?: SendResult['delivery'];
  error?: ErrorInfo;
}

let counter = 0;

/** A fresh clientMessageId: unique per page, and across pages and reloads by its random part. */
export function newClientMessageId(random: () => string = randomPart): string {
  counter += 1;
  return `console-${random()}-${counter}`;
}

function randomPart(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export class Outbox {
  private pending: PendingMessage[] = [];

  /** A new bubble, in state sending. */
  add(message: Omit<PendingMessage, 'state'>): PendingMessage {
    const pending: PendingMessage = { ...message, state: 'sending' };
    this.pending = [...this.pending, pending];
    return pending;
  }

  /** The daemon took it: the bubble says how (started, queued, steered) until its item arrives. */
  sent(clientMessageId: string, result: SendResult): void {
    this.update(clientMessageId, (message) => ({ ...message, state: 'sent', delivery: result.delivery }));
  }

  /** The daemon refused it: the bubble stays with the error, so nothing the user typed is lost. */
  failed(clientMessageId: string, error: ErrorInfo): void {
    this.update(clientMessageId, (message) => ({ ...message, state: 'failed', error }));
  }

  /** Its user_message item arrived: the item shows from now on. True when a bubble was waiting. */
  matched(clientMessageId: string): boolean {
    const before = this.pending.length;
    this.pending = this.pending.filter((message) => message.clientMessageId !== clientMessageId);
    return this.pending.length !== before;
  }

  /** A failed bubble the user dismissed (or sent again under a new id). */
  dismiss(clientMessageId: string): void {
    this.matched(clientMessageId);
  }

  /** The bubbles still waiting, oldest first; a new array whenever one changed. */
  view(): PendingMessage[] {
    return this.pending;
  }

  private update(clientMessageId: string, change: (message: PendingMessage) => PendingMessage): void {
    if (!this.pending.some((message) => message.clientMessageId === clientMessageId)) return;
    this.pending = this.pending.map((message) =>
      message.clientMessageId === clientMessageId ? change(message) : message,
    );
  }
}
