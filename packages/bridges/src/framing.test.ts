// The id sniffed from an over-long line (the bounded splitter itself: harnesses' runtime/lines.test.ts).
import { describe, expect, it } from 'vitest';
import { leadingId } from './framing.js';

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
