// A session under observation: every event is kept, waits have deadlines, and closing checks the
// stream invariants. The conformance suite and every adapter test use it to drive a Session.
import type {
  EventOf,
  EventType,
  ReinsEvent,
  SendOptions,
  SendResult,
  Session,
  TurnCompletedEvent,
  TurnInput,
} from '@reins/core';
import { assertStreamInvariants } from './invariants.js';

interface Waiter {
  /** Index of the first event this wait may match. */
  from: number;
  predicate: (event: ReinsEvent) => boolean;
  resolve: (event: ReinsEvent) => void;
  reject: (error: Error) => void;
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
      try {
        for await (const event of session.events) {
          const index = this.events.push(event) - 1;
          for (const waiter of [...this.waiters]) {
            if (index >= waiter.from && waiter.predicate(event)) {
              this.waiters.delete(waiter);
              waiter.resolve(event);
            }
          }
        }
      } finally {
        this.ended = true;
        // Nothing more can match: fail the waits now instead of at their deadlines.
        for (const waiter of [...this.waiters]) waiter.reject(new Error(`The session ended. Last: ${this.tail()}`));
        this.waiters.clear();
      }
    })();
    // A failing stream surfaces in close(); keep it from being an unhandled rejection until then.
    this.done.catch(() => {});
  }

  /**
   * The first event at index `from` or later (already seen or future) matching the predicate,
   * within the deadline. Fails at once when the stream ends without one.
   */
  waitFor<E extends ReinsEvent>(
    predicate: (event: ReinsEvent) => event is E,
    what: string,
    timeoutMs?: number,
    from?: number,
  ): Promise<E>;
  waitFor<E extends ReinsEvent = ReinsEvent>(
    predicate: (event: ReinsEvent) => boolean,
    what: string,
    timeoutMs?: number,
    from?: number,
  ): Promise<E>;
  waitFor<E extends ReinsEvent = ReinsEvent>(
    predicate: (event: ReinsEvent) => boolean,
    what: string,
    timeoutMs = this.defaultTimeoutMs,
    from = 0,
  ): Promise<E> {
    const seen = this.events.slice(from).find(predicate);
    if (seen) return Promise.resolve(seen as E);
    if (this.ended) return Promise.reject(new Error(`The session ended before ${what}. Last: ${this.tail()}`));
    return new Promise<E>((resolve, reject) => {
      const waiter: Waiter = {
        from,
        predicate,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event as E);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(new Error(`Waiting for ${what}: ${error.message}`));
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. Last events: ${this.tail()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Waits like `waitFor`, then returns the events from index `from` through the match (the match last). */
  async collect(
    predicate: (event: ReinsEvent) => boolean,
    what: string,
    timeoutMs?: number,
    from = 0,
  ): Promise<ReinsEvent[]> {
    const match = await this.waitFor(predicate, what, timeoutMs, from);
    return this.events.slice(from, this.events.indexOf(match, from) + 1);
  }

  /** Sends and waits for that turn's terminal. */
  async turn(input: TurnInput | string, options: SendOptions = {}, timeoutMs?: number): Promise<TurnCompletedEvent> {
    const from = this.events.length;
    const sent = await this.session.send(input, options);
    return this.terminalOf(sent, from, timeoutMs);
  }

  /** Waits for the terminal of a turn that `send` reported. */
  terminalOf(sent: Pick<SendResult, 'turnId'>, from = 0, timeoutMs?: number): Promise<TurnCompletedEvent> {
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

  /** Every event of one type so far, in order. */
  ofType<T extends EventType>(type: T): EventOf<T>[] {
    return this.events.filter((event): event is EventOf<T> => event.type === type);
  }

  /** Closes the session, waits for the stream to end, and checks the invariants (every turn ended). */
  async close(): Promise<void> {
    await this.session.close();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.done,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`The event stream did not end after close(). Last: ${this.tail()}`)),
            15_000,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    assertStreamInvariants(this.events, { settled: true });
  }

  /** Closes every recorder, each even when another fails, then throws the first failure. */
  static async closeAll(recorders: Iterable<SessionRecorder>): Promise<void> {
    const results = await Promise.allSettled([...recorders].map((recorder) => recorder.close()));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  tail(count = 6): string {
    return this.events
      .slice(-count)
      .map((event) => `${event.seq}:${event.type}`)
      .join(', ');
  }
}
