import { describe, expect, it } from 'vitest';
import { EventPartJoiner } from './event-parts.js';

const event = {
  type: 'notice',
  kind: 'info',
  message: 'x'.repeat(50),
  seq: 4,
  harness: 'h',
  sessionId: 's',
  turnId: null,
  at: 1,
};
const json = JSON.stringify(event);

function parts(sessionId: string, seq: number, text: string, count: number) {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, index) => ({
    sessionId,
    seq,
    index,
    count,
    data: text.slice(index * size, (index + 1) * size),
  }));
}

describe('EventPartJoiner', () => {
  it('joins the parts of an event, sessions interleaved, into the event', () => {
    const joiner = new EventPartJoiner();
    const a = parts('a', 4, json, 3);
    const b = parts('b', 4, json.replace('"s"', '"t"'), 2);
    expect(joiner.add(a[0])).toBeUndefined();
    expect(joiner.add(b[0])).toBeUndefined();
    expect(joiner.add(a[1])).toBeUndefined();
    expect(joiner.add(b[1])).toEqual({ sessionId: 'b', event: { ...event, sessionId: 't' } });
    expect(joiner.add(a[2])).toEqual({ sessionId: 'a', event });
  });

  it('drops what was pending on a part that does not follow on, and on malformed parts or JSON', () => {
    const joiner = new EventPartJoiner();
    const a = parts('a', 4, json, 3);
    joiner.add(a[0]);
    expect(joiner.add(a[2])).toBeUndefined(); // index 1 missing: dropped
    expect(joiner.add(a[1])).toBeUndefined(); // nothing pending any more
    expect(joiner.add({ ...a[0], count: 1 })).toBeUndefined(); // schema: a split event has 2 parts at least
    expect(joiner.add('nonsense')).toBeUndefined();
    // A different seq mid-way drops the first event; the second still joins from its own start.
    joiner.add(a[0]);
    const next = parts('a', 5, json.replace('"seq":4', '"seq":5'), 2);
    expect(joiner.add(next[1])).toBeUndefined();
    expect(joiner.add(next[0])).toBeUndefined();
    expect(joiner.add(next[1])).toEqual({ sessionId: 'a', event: { ...event, seq: 5 } });
    // Parts that join to text that is not JSON, or to another seq, give nothing.
    const broken = parts('a', 6, '{"type":"notice",', 2);
    joiner.add(broken[0]);
    expect(joiner.add(broken[1])).toBeUndefined();
    const wrongSeq = parts('a', 9, json, 2);
    joiner.add(wrongSeq[0]);
    expect(joiner.add(wrongSeq[1])).toBeUndefined();
  });
});
