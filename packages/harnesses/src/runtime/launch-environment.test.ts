import { describe, expect, it } from 'vitest';
import { keyedEnvironment } from './launch-environment.js';

describe('keyedEnvironment', () => {
  it('orders the defined entries by name, leaving out what the caller names and what libraries set', () => {
    const env = { B: '2', A: '1', GONE: undefined, TOKEN: 't', NoDefaultCurrentDirectoryInExePath: '1' };
    expect(keyedEnvironment(env)).toEqual([
      ['A', '1'],
      ['B', '2'],
      ['TOKEN', 't'],
    ]);
    expect(keyedEnvironment(env, new Set(['TOKEN']))).toEqual([
      ['A', '1'],
      ['B', '2'],
    ]);
  });
});
