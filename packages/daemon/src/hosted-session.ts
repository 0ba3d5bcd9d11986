// A session that belongs to the daemon, not to any connection: it reads the Session's events once
// (the one consumer), keeps the newest in a bounded replay buffer, tracks status and native id for
// session/list, and fans every event out to the connections subscribed right now.
import type { HostedSessionStatus, SessionListing } from '@reins/client';
import type { HarnessId, ReinsEvent, Session } from '@reins/core';
import { EventBuffer } from './event-buffer.js';
import type { Logger } from './logger.js';

export type EventSink = (event: ReinsEvent) => void;

/** How long close waits for the harness's last events after session.close() returned. */
const DRAIN_DEADLINE_MS = 10_000;

export class HostedSession {
  readonly id: string;
  readonly harness: HarnessId;
  readonly createdAt = Date.now();
  private readonly buffer: EventBuffer;
  private status: HostedSessionStatus = 'idle';
  private native: string | undefined;
  private readonly sinks = new Map<object, EventSink>();
  /** Resolves when the session's event stream has ended (after session.closed). */
  readonly drained: Promise<void>;
  private closing: Promise<void> | undefined;
  private ended: number | undefined;

  constructor(
    readonly session: Session,
    bufferSize: number,
    private readonly log: Logger,
  ) {
    this.id = session.id;
    this.harness = session.harness;
    this.native = session.nativeSessionId;
    this.buffer = new EventBuffer(bufferSize);
    this.drained = this.pump();
  }

  listing(): SessionListing {
    return {
      sessionId: this.id,
      harness: this.harness,
      ...(this.native !== undefined ? { nativeSessionId: this.native } : {}),
      status: this.status,
      lastSeq: this.buffer.lastSeq,
      createdAt: this.createdAt,
    };
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  /** When the event stream ended (ms since epoch); closed sessions are forgotten oldest first. */
  get endedAt(): number | undefined {
    return this.ended;
  }

  /**
   * Buffered events after `afterSeq` (throws invalid_input when they were dropped), and from now on
   * every new event goes to `sink`. Synchronous on purpose: no event can slip between the replay and
   * the live feed.
   */
  subscribe(owner: object, afterSeq: number, sink: EventSink): ReinsEvent[] {
    const replay = this.buffer.since(afterSeq);
    if (this.ended === undefined) this.sinks.set(owner, sink);
    return replay;
  }

  unsubscribe(owner: object): void {
    this.sinks.delete(owner);
  }

  /** Ends the harness process and waits until every event up to session.closed went out. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.session.close();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.drained,
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            this.log.warn('session events did not end after close', { sessionId: this.id });
            resolve();
          }, DRAIN_DEADLINE_MS);
        }),
      ]);
      clearTimeout(timer);
    })();
    return this.closing;
  }

  private async pump(): Promise<void> {
    try {
      for await (const event of this.session.events) {
        this.buffer.push(event);
        if (event.type === 'session.status') this.status = event.status;
        if (event.type === 'session.updated' && event.nativeSessionId !== undefined) {
          this.native = event.nativeSessionId;
        }
        if (event.type === 'session.closed') this.status = 'closed';
        for (const sink of this.sinks.values()) {
          try {
            sink(event);
          } catch (error) {
            // One broken connection must not stop the others (nor the buffer) from getting events.
            this.log.warn('event sink failed', { sessionId: this.id, error: String(error) });
          }
        }
      }
    } catch (error) {
      this.log.error('session event stream failed', {
        sessionId: this.id,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.status = 'closed';
      this.ended = Date.now();
      this.sinks.clear();
    }
  }
}
