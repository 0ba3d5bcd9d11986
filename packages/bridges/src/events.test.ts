// eventChecker: a session's events are checked against the Reins schema unless core's event guard
// checked them in this process already (an in-process session's own stream).
import { AsyncQueue, SessionEventStream } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { eventChecker } from './events.js';

const envelope = { seq: 1, harness: 'codex', sessionId: 's', turnId: 'turn_1', at: 1 };
const invalid = { ...envelope, type: 'item.delta', itemId: 'm', kind: 'text', text: 5 };

describe('eventChecker', () => {
  it("takes an in-process stream's events as they are: the guard checked each one", async () => {
    const stream = new SessionEventStream({ harness: 'codex', sessionId: 's', now: () => 1 });
    stream.startTurn({ text: 'Hi' });
    const check = eventChecker(stream.events);
    const iterator = stream.events[Symbol.asyncIterator]();
    const first = (await iterator.next()).value;
    const checked = check(first);
    expect('event' in checked && checked.event).toBe(first);
    // Not the schema: what it is handed passes as it is (only the stream's own events reach it).
    expect('event' in check(invalid)).toBe(true);
  });

  it('checks every event of any other session against the schema: a daemon client, a Harness from elsewhere', () => {
    async function* foreign() {
      yield invalid;
    }
    const queue = new AsyncQueue<unknown>();
    for (const events of [foreign(), queue]) {
      const checked = eventChecker(events)(invalid);
      expect(checked).toEqual({
        fault: { eventType: 'item.delta', reason: expect.stringContaining('not a valid Reins event') },
      });
      const valid = { ...envelope, type: 'session.status', status: 'idle' };
      expect(eventChecker(events)(valid)).toEqual({ event: valid });
    }
  });
});
