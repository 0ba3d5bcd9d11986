// A session under observation: every event is kept, waits have deadlines, and closing checks the
// stream invariants. The conformance suite and adapter tests use it to drive a Session.
import type { ReinsEvent, SendOptions, SendResult, Session, TurnCompletedEvent, TurnInput } from '@reins/core';
import { assertStreamInvariants } from './invariants.js';

interface Waiter {
  predicate: (event: ReinsEvent) => boolean;
  resolve: (event: ReinsEvent) => void;
}

export class SessionRecorder {
  readonly events: ReinsEvent[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly done: Promise<void>;
  private ended = false;

  constructor(
    readonly session: Session,
    private readonly defaultTimeoutMs = 60_000,
  ) {
    this.done = (async () => {
      for await (const event of session.events) {
        this.events.push(event);
        for (const waiter of [...this.waiters]) {
          if (waiter.predicate(event)) {
            this.waiters.delete(waiter);
            waiter.resolve(event);
          }
        }
      }
      this.ended = true;
    })();
  }

  /** The first event (already seen or future) matching the predicate, within the deadline. */
  waitFor<E extends ReinsEvent = ReinsEvent>(
    predicate: (event: ReinsEvent) => boolean,
    what: string,
    timeoutMs = this.defaultTimeoutMs,
    from = 0,
  ): Promise<E> {
    const seen = this.events.slice(from).find(predicate);
    if (seen) return Promise.resolve(seen as E);
    if (this.ended) return Promise.reject(new Error(`The session ended before ${what}.`));
    return new Promise<E>((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event as E);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. Last events: ${this.tail()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Sends and waits for that turn's terminal. */
  async turn(input: TurnInput | string, options: SendOptions = {}, timeoutMs?: number): Promise<TurnCompletedEvent> {
    const from = this.events.length;
    const sent = await this.session.send(input, options);
    return this.terminalOf(sent, from, timeoutMs);
  }

  /** Waits for the terminal of a turn that `send` reported. */
  terminalOf(sent: SendResult, from = 0, timeoutMs?: number): Promise<TurnCompletedEvent> {
    return this.waitFor<TurnCompletedEvent>(
      (event) => event.type === 'turn.completed' && event.turnId === sent.turnId,
      `turn.completed of ${sent.turnId}`,
      timeoutMs,
      from,
    );
  }

  /** Events of one turn, in order. */
  turnEvents(turnId: string): ReinsEvent[] {
    return this.events.filter((event) => event.turnId === turnId);
  }

  /** Closes the session, waits for the stream to end, and checks the invariants. */
  async close(): Promise<void> {
    await this.session.close();
    await Promise.race([
      this.done,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`The event stream did not end after close(). Last: ${this.tail()}`)), 15_000),
      ),
    ]);
    assertStreamInvariants(this.events);
  }

  tail(count = 6): string {
    return this.events
      .slice(-count)
      .map((event) => `${event.seq}:${event.type}`)
      .join(', ');
  }
}
