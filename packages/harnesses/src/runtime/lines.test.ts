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
