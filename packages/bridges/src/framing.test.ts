// The id sniffed from an over-long line (the bounded splitter itself: harnesses' runtime/lines.test.ts).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { leadingId, lineBatches } from './framing.js';

/** A stream that keeps each write as it came. */
function recording(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { stream, writes };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('leadingId', () => {
  it('reads the top-level id, a number or a string, wherever it comes before the cut', () => {
    expect(leadingId('{"id":12,"method":"turn/start","params":{"inp')).toBe(12);
    expect(leadingId('{"jsonrpc":"2.0","id":"a\\"b","method":"session/prompt"')).toBe('a"b');
    expect(leadingId(' {"method":"x","params":{"text":"\\"id\\": 5"},"id":3')).toBe(3);
  });

  it('does not take a nested id, or one the cut left out', () => {
    expect(leadingId('{"method":"x","params":{"id":5,"text":"aaaa')).toBeUndefined();
    expect(leadingId('{"method":"x","params":{"a":[{"id":1}],"b":"ccc')).toBeUndefined();
    expect(leadingId('not json')).toBeUndefined();
    expect(leadingId('{"id":')).toBeUndefined();
  });
});

describe('lineBatches', () => {
  it('writes the lines of one turn of the loop once, in the order written, each with its newline', async () => {
    const { stream, writes } = recording();
    const lines = lineBatches(stream);
    const sent: string[] = [];
    const put = (line: string) => {
      sent.push(line);
      lines.write(line);
    };
    put('{"id":1,"result":{}}');
    process.nextTick(() => put('{"method":"b"}'));
    await Promise.resolve();
    put('{"method":"a"}');
    queueMicrotask(() => put('{"method":"c"}'));
    expect(writes).toEqual([]);
    await nextTurn();
    expect(sent).toHaveLength(4);
    expect(writes).toEqual([sent.map((line) => `${line}\n`).join('')]);
    lines.write('{"method":"d"}');
    await nextTurn();
    expect(writes).toEqual([sent.map((line) => `${line}\n`).join(''), '{"method":"d"}\n']);
  });

  it('keeps every frame and its order across many turns, whatever the batching', async () => {
    const { stream, writes } = recording();
    const lines = lineBatches(stream);
    const sent: string[] = [];
    for (let turn = 0; turn < 20; turn++) {
      for (let index = 0; index <= turn % 4; index++) {
        const line = JSON.stringify({ method: 'item/agentMessage/delta', params: { turn, index } });
        sent.push(line);
        if (index % 2 === 0) lines.write(line);
        else await Promise.resolve().then(() => lines.write(line));
      }
      await nextTurn();
    }
    expect(writes.join('').split('\n').slice(0, -1)).toEqual(sent);
    expect(writes).toHaveLength(20);
  });

  it('flush writes at once; nothing is written once the stream is gone', async () => {
    const { stream, writes } = recording();
    let open = true;
    const lines = lineBatches(stream, () => open);
    lines.write('a');
    lines.flush();
    expect(writes).toEqual(['a\n']);
    lines.write('b');
    open = false;
    await nextTurn();
    lines.flush();
    expect(writes).toEqual(['a\n']);
  });
});
