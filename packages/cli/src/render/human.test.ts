// The closing usage line says what its numbers count: `21,308 tokens in · 37 out`, not bare numbers.
import { describe, expect, it } from 'vitest';
import { tokenCounts } from './human.js';

describe('tokenCounts', () => {
  it('names the unit and groups the digits', () => {
    expect(tokenCounts({ input: 21308, output: 37 })).toBe('21,308 tokens in · 37 out');
  });

  it('marks a count the harness did not report, and says nothing when it reported neither', () => {
    expect(tokenCounts({ input: 5 })).toBe('5 tokens in · ? out');
    expect(tokenCounts({})).toBeUndefined();
    expect(tokenCounts(undefined)).toBeUndefined();
  });
});
