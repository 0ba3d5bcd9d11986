// Test support for ACP sessions (used by the process and real-CLI tiers): read a session's events
// with a deadline on every read, and check the stream rules every test asserts (seq from 1 with
// no gaps, exactly one turn.completed per turn.started). No test framework import: it throws.
import type { ReinsEvent, Session } from '@reins/core';

export class EventReader {
  readonly all: ReinsEvent[] = [];
  private readonly iterator: AsyncIterator<ReinsEvent>;
  private ended = false;

  constructor(session: Pick<Session, 'events'>) {
    this.iterator = session.events[Symbol.asyncIterator]();
  }

  /** The next event, or an error after `timeoutMs`. undefined when the stream ended. */
  async next(timeoutMs = 10_000): Promise<ReinsEvent | undefined> {
    if (this.ended) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no event within ${timeoutMs} ms; last: ${this.describeTail()}`)),
        timeoutMs,
      );
    });
    try {
      const result = await Promise.race([this.iterator.next(), deadline]);
      if (result.done) {
        this.ended = true;
        return undefined;
      }
      this.all.push(result.value);
      return result.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads until an event matches; returns the events read by this call (the match last). */
  async until(match: (event: ReinsEvent) => boolean, timeoutMs = 10_000): Promise<ReinsEvent[]> {
    const started = Date.now();
    const read: ReinsEvent[] = [];
    for (;;) {
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; last: ${this.describeTail()}`);
      const event = await this.next(left);
      if (!event) throw new Error(`the stream ended before a matching event; last: ${this.describeTail()}`);
      read.push(event);
      if (match(event)) return read;
    }
  }

  /** Reads through the next turn.completed and returns it with the turn's events. */
  async turn(
    timeoutMs = 30_000,
  ): Promise<{ events: ReinsEvent[]; completed: Extract<ReinsEvent, { type: 'turn.completed' }> }> {
    const events = await this.until((event) => event.type === 'turn.completed', timeoutMs);
    return { events, completed: events.at(-1) as Extract<ReinsEvent, { type: 'turn.completed' }> };
  }

  /** Reads to the end of the stream (after close). */
  async rest(timeoutMs = 10_000): Promise<ReinsEvent[]> {
    const read: ReinsEvent[] = [];
    for (;;) {
      const event = await this.next(timeoutMs);
      if (!event) return read;
      read.push(event);
    }
  }

  private describeTail(): string {
    return this.all
      .slice(-5)
      .map((event) => `${event.seq}:${event.type}`)
      .join(', ');
  }
}

/** Problems with the stream rules: seq 1.. with no gaps, one turn.completed per turn.started. */
export function streamProblems(events: readonly ReinsEvent[]): string[] {
  const problems: string[] = [];
  events.forEach((event, index) => {
    if (event.seq !== index + 1) problems.push(`event ${index} has seq ${event.seq}, expected ${index + 1}`);
  });
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'turn.started' && event.turnId) started.set(event.turnId, (started.get(event.turnId) ?? 0) + 1);
    if (event.type === 'turn.completed' && event.turnId)
      completed.set(event.turnId, (completed.get(event.turnId) ?? 0) + 1);
  }
  for (const [turnId, count] of started) {
    if (count !== 1) problems.push(`turn ${turnId} started ${count} times`);
    const done = completed.get(turnId) ?? 0;
    if (done !== 1) problems.push(`turn ${turnId} has ${done} turn.completed events`);
  }
  for (const turnId of completed.keys())
    if (!started.has(turnId)) problems.push(`turn ${turnId} completed but never started`);
  return problems;
}

/** Throws when the stream rules are broken; returns the number of turns checked. */
export function assertStreamRules(events: readonly ReinsEvent[]): number {
  const problems = streamProblems(events);
  if (problems.length > 0) throw new Error(`stream rules broken:\n${problems.join('\n')}`);
  return events.filter((event) => event.type === 'turn.completed').length;
}
