// The bounded line reader both bridges read stdin with, and the id sniffed from an over-long line.
import { describe, expect, it } from 'vitest';
import { LineReader, leadingId } from './framing.js';

function reader(maxLineBytes: number) {
  const lines: string[] = [];
  const overlong: { prefix: string; bytes: number }[] = [];
  const lineReader = new LineReader({
    maxLineBytes,
    onLine: (line) => lines.push(line),
    onOverlong: (line) => overlong.push(line),
  });
  return { lineReader, lines, overlong };
}

describe('LineReader', () => {
  it('splits lines across chunks, drops a trailing CR, and keeps a last line without its newline', () => {
    const { lineReader, lines } = reader(100);
    lineReader.push(Buffer.from('{"a":1}\r\n{"b":'));
    lineReader.push(Buffer.from('2}\n'));
    lineReader.push(Buffer.from('tail'));
    lineReader.flush();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', 'tail']);
  });

  it('drops an over-long line whole, keeps its start, and goes on with the next line', () => {
    const { lineReader, lines, overlong } = reader(16);
    lineReader.push(Buffer.from('{"id":7,"method":"x","params":"'));
    lineReader.push(Buffer.from('a'.repeat(1000)));
    lineReader.push(Buffer.from('"}\n{"id":8}\n'));
    expect(overlong).toEqual([{ prefix: expect.stringMatching(/^\{"id":7,"method":"x"/), bytes: 1033 }]);
    expect(lines).toEqual(['{"id":8}']);
  });

  it('takes multi-byte characters split across chunks', () => {
    const { lineReader, lines } = reader(100);
    const bytes = Buffer.from('héllo\n');
    lineReader.push(bytes.subarray(0, 2));
    lineReader.push(bytes.subarray(2));
    expect(lines).toEqual(['héllo']);
  });
});

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
