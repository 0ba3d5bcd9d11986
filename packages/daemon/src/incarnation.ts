// One harness process of a daemon session (an "incarnation"; a session has a new one after every
// resume, numbered by its generation). It is started through the harness (a resume that comes
// back as another conversation is refused: never a silent fresh start), reads the session's
// events once, hands each to its owner, and is stopped with a deadline on its last events.
import { type Harness, ReinsError, type ReinsEvent, type Session, type SessionSpec } from '@reins/core';
import { type NativeCarrier, newNativeCarrier } from './envelope.js';
import type { Logger } from './logger.js';

/** Why the daemon stopped a session's process. */
export type SleepReason = 'idle' | 'lru' | 'shutdown';

/** How long a stop waits for a harness's last events after session.close() returned. */
const DRAIN_DEADLINE_MS = 10_000;

export interface IncarnationHooks {
  event(incarnation: Incarnation, event: ReinsEvent): void;
  ended(incarnation: Incarnation): void;
  /** Runs harness calls in the session's context (the process tracker attributes children by it). */
  run<T>(work: () => T): T;
  log: Logger;
  sessionId: string;
}

export class Incarnation {
  /** running: serving; sleeping: the daemon stops it; closing: the client closes the session. */
  mode: 'running' | 'sleeping' | 'closing' = 'running';
  sleepReason?: SleepReason;
  /** The adapter's session.closed, held back unless the client closed the session. */
  closedEvent?: Extract<ReinsEvent, { type: 'session.closed' }>;
  /** Resolves when its event stream ended (after the owner heard `ended`). */
  readonly ended: Promise<void>;
  /** Its stream's last event that carried a native frame whole, for the references after it (envelope.ts). */
  readonly nativeCarrier: NativeCarrier = newNativeCarrier();

  private constructor(
    readonly session: Session,
    readonly generation: number,
    private readonly hooks: IncarnationHooks,
  ) {
    this.ended = this.pump();
  }

  /**
   * Starts a process with `spec`. With `spec.resume`, the harness must come back on that very
   * conversation. The pump starts reading on the next tick, so the caller can adopt it first.
   */
  static async start(
    harness: Harness,
    spec: SessionSpec,
    generation: number,
    hooks: IncarnationHooks,
  ): Promise<Incarnation> {
    const session = await hooks.run(() => harness.createSession(spec));
    const expected = spec.resume?.nativeSessionId;
    if (spec.resume?.fork === true) {
      // A fork is a new conversation: coming back on the original would make two sessions share it.
      if (session.nativeSessionId === expected) {
        await session.close();
        throw new ReinsError(
          'resume_failed',
          `The ${harness.id} harness did not fork conversation ${expected}: it resumed the original, refused.`,
          { harness: harness.id, operation: 'fork', data: { expected } },
        );
      }
    } else if (
      expected !== undefined &&
      spec.resume?.fallback === undefined && // allowed: a new conversation that says so (resume-fallback.ts)
      session.nativeSessionId !== undefined &&
      session.nativeSessionId !== expected
    ) {
      await session.close();
      throw new ReinsError(
        'resume_failed',
        `The ${harness.id} harness resumed conversation ${session.nativeSessionId} instead of ${expected}: refused (never a silent fresh start).`,
        { harness: harness.id, operation: 'resume', data: { expected, got: session.nativeSessionId } },
      );
    }
    return new Incarnation(session, generation, hooks);
  }

  private async pump(): Promise<void> {
    // Yield once: the owner adopts this incarnation before its first event is handed over.
    await Promise.resolve();
    try {
      for await (const event of this.session.events) this.hooks.event(this, event);
    } catch (error) {
      this.hooks.log.error('session event stream failed', {
        sessionId: this.hooks.sessionId,
        error: (error as Error).message,
      });
    } finally {
      this.hooks.ended(this);
    }
  }

  /** Ends the process and waits (with a deadline) for its last events. */
  async stop(): Promise<void> {
    await this.hooks.run(() => this.session.close());
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.hooks.log.warn('session events did not end after close', { sessionId: this.hooks.sessionId });
          resolve();
        }, DRAIN_DEADLINE_MS);
      }),
    ]);
    clearTimeout(timer);
  }
}
