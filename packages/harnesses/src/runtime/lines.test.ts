import { describe, expect, it } from 'vitest';
import { LineSplitter } from './lines.js';

describe('LineSplitter', () => {
  it('splits lines across chunk boundaries, strips CR and skips empty lines', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('{"a":1}\n{"b"'));
    splitter.push(Buffer.from(':2}\r\n\n{"c":'));
    splitter.push(Buffer.from('3}'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    splitter.flush();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('decodes every line of one chunk in place: CR stripped, CR-only and empty lines skipped, a line ending at the chunk end', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('a\r\n\r\n\nbé\nc\r\rd\n'));
    splitter.push(Buffer.from('e\n'));
    splitter.push(Buffer.from('\r'));
    splitter.push(Buffer.from('\nf'));
    splitter.flush();
    expect(lines).toEqual(['a', 'bé', 'c\r\rd', 'e', 'f']);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    const bytes = Buffer.from('héllo ✓\n');
    splitter.push(bytes.subarray(0, 2));
    splitter.push(bytes.subarray(2, 9));
    splitter.push(bytes.subarray(9));
    expect(lines).toEqual(['héllo ✓']);
  });

  it('drops a runaway line past the limit WHOLE (no tail passes as a line) and reports its full size once', () => {
    const lines: string[] = [];
    const oversize: number[] = [];
    const splitter = new LineSplitter(
      (line) => lines.push(line),
      8,
      (bytes) => oversize.push(bytes),
    );
    splitter.push(Buffer.from('0123456789'));
    splitter.push(Buffer.from('abcdefgh'));
    splitter.push(Buffer.from('ab\nok\n'));
    expect(oversize).toEqual([20]);
    expect(lines).toEqual(['ok']);
  });

  it('reports a runaway line the child never ended when its output closes', () => {
    const lines: string[] = [];
    const oversize: number[] = [];
    const splitter = new LineSplitter(
      (line) => lines.push(line),
      4,
      (bytes) => oversize.push(bytes),
    );
    splitter.push(Buffer.from('ok\n'));
    splitter.push(Buffer.from('0123456789'));
    splitter.flush();
    expect(lines).toEqual(['ok']);
    expect(oversize).toEqual([10]);
  });
});

function reader(maxLineBytes: number) {
  const lines: string[] = [];
  const overlong: { prefix: string; bytes: number }[] = [];
  const lineReader = new LineSplitter(
    (line) => lines.push(line),
    maxLineBytes,
    (bytes, prefix) => overlong.push({ prefix, bytes }),
  );
  return { lineReader, lines, overlong };
}

describe('LineSplitter as the bridges read stdin (an over-long line keeps its start)', () => {
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

describe('LineSplitter: the start of an over-long line', () => {
  it('keeps the start of a line that ends in the same chunk, and at most 64 KiB of any', () => {
    const overlong: { prefix: string; bytes: number }[] = [];
    const splitter = new LineSplitter(
      () => {},
      8,
      (bytes, prefix) => overlong.push({ prefix, bytes }),
    );
    splitter.push(Buffer.from('{"id":9,"p":"xxxx"}\n'));
    splitter.push(Buffer.from('y'.repeat(100_000)));
    splitter.push(Buffer.from('z'.repeat(100)));
    splitter.push(Buffer.from('\n'));
    expect(overlong[0]).toEqual({ prefix: '{"id":9,"p":"xxxx"}', bytes: 19 });
    expect(overlong[1]?.bytes).toBe(100_100);
    expect(overlong[1]?.prefix.length).toBe(64 * 1024);
    expect(overlong[1]?.prefix.replaceAll('y', '')).toBe('');
  });
});
