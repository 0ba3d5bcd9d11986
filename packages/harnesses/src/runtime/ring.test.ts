import { describe, expect, it } from 'vitest';
import { TextRing } from './ring.js';

describe('TextRing', () => {
  it('keeps only the newest text up to its capacity', () => {
    const ring = new TextRing(10);
    ring.push('aaaa');
    ring.push('bbbb');
    ring.push('cccc');
    expect(ring.text()).toBe('bbbbcccc');
    ring.push('0123456789XYZ');
    expect(ring.text()).toBe('3456789XYZ');
  });

  it('tail returns the last non-empty lines', () => {
    const ring = new TextRing();
    ring.push('one\n\ntwo\nthree\n');
    expect(ring.tail(2)).toBe('two\nthree');
  });
});
