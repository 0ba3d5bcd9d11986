// A subscription's replay and live delivery on an in-memory session and outlet: a batching outlet
// gets the backlog as session/events runs (bounded pages, in order, gap-free, a lone event as a
// single) and each live run (what one store write published) as one batch; an outlet without
// batches gets every event on its own, as before. Both see the same events.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import type { Logger } from './logger.js';
import type { SessionHandle } from './session-directory.js';
import type { EventSink, PublishedEvent } from './session-log.js';
import { type EventOutlet, Subscription } from './subscription.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

function published(seq: number, padding = 0): PublishedEvent {
  const event = { type: 'session.status', seq, harness: 'codex', sessionId: 's1', turnId: null, at: 1, status: 'idle' };
  if (padding > 0) Object.assign(event, { pad: 'p'.repeat(padding) });
  return { seq, event: event as ReinsEvent, json: JSON.stringify(event) };
}

/** A session log in memory: `publish` hands an event to the sinks as SessionLog does. */
class FakeSession {
  readonly id = 's1';
  readonly log: PublishedEvent[] = [];
  readonly reads: Array<{ afterSeq: number; limit: number }> = [];
  private readonly sinks = new Map<object, EventSink>();
  /** seqs the log "lost" (a read skips them), to make a gap. */
  missing = new Set<number>();
  isDeleted = false;

  get lastSeq(): number {
    return this.log.length;
  }
  addSink(owner: object, sink: EventSink): void {
    this.sinks.set(owner, sink);
  }
  removeSink(owner: object): void {
    this.sinks.delete(owner);
  }
  async readEvents(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    this.reads.push({ afterSeq, limit });
    return this.log.filter((entry) => entry.seq > afterSeq && !this.missing.has(entry.seq)).slice(0, limit);
  }
  append(count: number, padding = 0): void {
    for (let index = 0; index < count; index++) this.log.push(published(this.log.length + 1, padding));
  }
  publish(padding = 0): void {
    this.publishRun(1, padding);
  }
  /** `count` events handed on as one run, as SessionLog does after one store write; the run. */
  publishRun(count: number, padding = 0): PublishedEvent[] {
    const run = Array.from({ length: count }, (_, index) => published(this.log.length + 1 + index, padding));
    this.log.push(...run);
    for (const sink of [...this.sinks.values()]) sink(run);
    return run;
  }
}

type Sent = { kind: 'single'; seqs: number[] } | { kind: 'batch'; seqs: number[] };

class FakeOutlet implements EventOutlet {
  readonly sent: Sent[] = [];
  /** The arrays sendEvents was given. */
  readonly batches: Array<readonly PublishedEvent[]> = [];
  constructor(readonly eventBatches: boolean) {}
  sendEvent(_sessionId: string, entry: PublishedEvent): boolean {
    this.sent.push({ kind: 'single', seqs: [entry.seq] });
    return true;
  }
  sendEvents(_sessionId: string, events: readonly PublishedEvent[]): boolean {
    this.sent.push({ kind: 'batch', seqs: events.map((entry) => entry.seq) });
    this.batches.push(events);
    return true;
  }
  drained(): Promise<void> {
    return Promise.resolve();
  }
  get seqs(): number[] {
    return this.sent.flatMap((entry) => entry.seqs);
  }
}

const settle = async () => {
  for (let index = 0; index < 20; index++) await new Promise((resolve) => setImmediate(resolve));
};
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

function subscribe(session: FakeSession, outlet: FakeOutlet, afterSeq = 0): Subscription {
  const subscription = new Subscription(session as unknown as SessionHandle, afterSeq, outlet, silent);
  subscription.start();
  return subscription;
}

describe('Subscription replay', () => {
  it('sends the backlog to a batching outlet in runs of at most one page, then live events one by one', async () => {
    const session = new FakeSession();
    session.append(1_300);
    const outlet = new FakeOutlet(true);
    subscribe(session, outlet, 10);
    await settle();
    expect(outlet.sent.map((entry) => entry.kind)).toEqual(['batch', 'batch', 'batch']);
    expect(outlet.sent.map((entry) => entry.seqs.length)).toEqual([512, 512, 266]);
    expect(outlet.seqs).toEqual(range(11, 1_300));
    session.publish();
    session.publish();
    expect(outlet.sent.slice(-2)).toEqual([
      { kind: 'single', seqs: [1_301] },
      { kind: 'single', seqs: [1_302] },
    ]);
  });

  it('sends every event on its own to an outlet without batches (pages of 256, as before)', async () => {
    const session = new FakeSession();
    session.append(600);
    const outlet = new FakeOutlet(false);
    subscribe(session, outlet);
    await settle();
    session.publish();
    expect(outlet.sent.every((entry) => entry.kind === 'single')).toBe(true);
    expect(outlet.seqs).toEqual(range(1, 601));
    expect(session.reads.every((read) => read.limit === 256)).toBe(true);
  });

  it('gives a batching and a plain outlet the same events in the same order', async () => {
    const session = new FakeSession();
    session.append(777);
    const batching = new FakeOutlet(true);
    const plain = new FakeOutlet(false);
    subscribe(session, batching, 3);
    subscribe(session, plain, 3);
    await settle();
    for (let index = 0; index < 5; index++) session.publish();
    expect(batching.seqs).toEqual(plain.seqs);
    expect(batching.seqs).toEqual(range(4, 782));
  });

  it('sends a lone replayed event as session/event', async () => {
    const session = new FakeSession();
    session.append(5);
    const outlet = new FakeOutlet(true);
    subscribe(session, outlet, 4);
    await settle();
    expect(outlet.sent).toEqual([{ kind: 'single', seqs: [5] }]);
  });

  it('stops a batch at a gap in a page and sends what follows once the log has it again', async () => {
    const session = new FakeSession();
    session.append(40);
    session.missing.add(21);
    const outlet = new FakeOutlet(true);
    const subscription = subscribe(session, outlet);
    await settle();
    // Up to 20 in one batch; nothing after the hole while seq 21 cannot be read.
    expect(outlet.sent).toEqual([{ kind: 'batch', seqs: range(1, 20) }]);
    session.missing.clear();
    subscription.stop();
    const again = new FakeOutlet(true);
    subscribe(session, again, 20);
    await settle();
    expect(again.sent).toEqual([{ kind: 'batch', seqs: range(21, 40) }]);
  });

  it('stops when the outlet refuses a batch (the connection was dropped)', async () => {
    const session = new FakeSession();
    session.append(1_200);
    const outlet = new FakeOutlet(true);
    let calls = 0;
    outlet.sendEvents = () => ++calls < 1;
    subscribe(session, outlet);
    await settle();
    session.publish();
    expect(calls).toBe(1);
    expect(outlet.sent).toEqual([]);
    expect(session.reads).toHaveLength(1);
  });
});

/** An outlet whose socket holds what it is sent until the test lets it drain. */
class SlowOutlet extends FakeOutlet {
  unsent = 0;
  drains = 0;
  private wake: (() => void) | undefined;
  constructor(
    eventBatches: boolean,
    private readonly lowWater: number,
    private readonly half: number,
  ) {
    super(eventBatches);
  }
  override sendEvent(sessionId: string, entry: PublishedEvent): boolean {
    this.unsent += entry.json.length;
    return super.sendEvent(sessionId, entry);
  }
  override sendEvents(sessionId: string, events: readonly PublishedEvent[]): boolean {
    for (const entry of events) this.unsent += entry.json.length;
    return super.sendEvents(sessionId, events);
  }
  get backlogged(): boolean {
    return this.unsent >= this.lowWater;
  }
  get congested(): boolean {
    return this.unsent >= this.half;
  }
  override drained(): Promise<void> {
    if (!this.backlogged) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
  /** The client read everything. */
  drain(): void {
    this.unsent = 0;
    this.drains++;
    this.wake?.();
    this.wake = undefined;
  }
}

describe('Subscription live runs', () => {
  it('sends a live run to a batching outlet as one batch, the same array for every subscriber', async () => {
    const session = new FakeSession();
    session.append(5);
    const first = new FakeOutlet(true);
    const second = new FakeOutlet(true);
    subscribe(session, first);
    subscribe(session, second);
    await settle();
    const run = session.publishRun(40);
    for (const outlet of [first, second]) {
      expect(outlet.sent.at(-1)).toEqual({ kind: 'batch', seqs: range(6, 45) });
      // Not a copy: the outlet keys the frames it makes once for all connections on it (socket-output.ts).
      expect(outlet.batches.at(-1)).toBe(run);
    }
    session.publishRun(1);
    expect(first.sent.at(-1)).toEqual({ kind: 'single', seqs: [46] });
  });

  it('sends a live run event by event to an outlet without batches', async () => {
    const session = new FakeSession();
    const outlet = new FakeOutlet(false);
    subscribe(session, outlet);
    await settle();
    session.publishRun(3);
    expect(outlet.sent).toEqual([
      { kind: 'single', seqs: [1] },
      { kind: 'single', seqs: [2] },
      { kind: 'single', seqs: [3] },
    ]);
  });

  it('skips what a live run repeats and reads what follows a gap in it from the log', async () => {
    const session = new FakeSession();
    session.append(3);
    const outlet = new FakeOutlet(true);
    subscribe(session, outlet);
    await settle();
    // A run that starts with an event already sent and skips seq 6 (never expected: the log heals it).
    const run = [published(3), published(4), published(5), published(7), published(8)];
    session.log.push(published(4), published(5), published(6), published(7), published(8));
    for (const sink of [
      ...(session as unknown as { sinks: Map<object, (run: PublishedEvent[]) => void> }).sinks.values(),
    ])
      sink(run);
    await settle();
    expect(outlet.seqs).toEqual(range(1, 8));
  });

  it('sends a live run of big events while the socket takes them, the rest once it drained', async () => {
    const MiB = 1024 * 1024;
    const session = new FakeSession();
    const outlet = new SlowOutlet(true, MiB, 4 * MiB);
    subscribe(session, outlet);
    await settle();
    // Handed over in runs of at most 2 MiB (here one event each): four of them fill half the cap
    // (congested), and the rest wait in the log until the socket drained.
    session.publishRun(6, MiB);
    await settle();
    expect(outlet.seqs).toEqual(range(1, 4));
    for (let round = 0; round < 10 && outlet.seqs.length < 6; round++) {
      outlet.drain();
      await settle();
    }
    expect(outlet.seqs).toEqual(range(1, 6));
  });
});

describe('Subscription flow by bytes', () => {
  const MiB = 1024 * 1024;

  it('replays big events a few at a time, each run after the socket took the last', async () => {
    const session = new FakeSession();
    session.append(20, MiB); // 20 events of 1 MiB each
    const outlet = new SlowOutlet(true, MiB, 8 * MiB);
    subscribe(session, outlet);
    await settle();
    // The first page is read whole, but handed over in runs of at most 2 MiB (here one event, a bit
    // over 1 MiB): the replay waits after the first run.
    expect(outlet.seqs).toEqual([1]);
    for (let round = 0; round < 30 && outlet.seqs.length < 20; round++) {
      outlet.drain();
      await settle();
      expect(outlet.unsent).toBeLessThanOrEqual(2 * MiB + 1024);
    }
    expect(outlet.seqs).toEqual(range(1, 20));
    // After a page of big events, the next pages read fewer (8 MiB of JSON each).
    expect(session.reads[0]?.limit).toBe(512);
    expect(session.reads.slice(1).every((read) => read.limit <= 8)).toBe(true);
  });

  it('a live event that finds the socket congested waits in the log; it follows once the socket drained', async () => {
    const session = new FakeSession();
    const outlet = new SlowOutlet(false, MiB, 4 * MiB);
    subscribe(session, outlet);
    await settle();
    session.publish(3 * MiB); // sent: the socket was empty
    session.publish(3 * MiB); // sent: 3 MiB unsent is below half the cap
    session.publish(3 * MiB); // congested: back to replay, which waits for the socket
    session.publish();
    await settle();
    expect(outlet.seqs).toEqual([1, 2]);
    outlet.drain();
    await settle();
    outlet.drain();
    await settle();
    expect(outlet.seqs).toEqual([1, 2, 3, 4]);
    // Live again: the next event goes at once.
    outlet.drain();
    await settle();
    session.publish();
    expect(outlet.seqs).toEqual([1, 2, 3, 4, 5]);
  });
});
