// `reins daemon --warm`: the flag's parsing (the daemon's refusal of a harness without warm starts is
// tested in packages/daemon/test/warm.process.test.ts).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../io.js';
import { parseWarm } from './daemon.js';

describe('reins daemon --warm', () => {
  it('reads harness=count pairs', () => {
    expect(parseWarm('codex=1,claude-code=2')).toEqual({ codex: 1, 'claude-code': 2 });
    expect(parseWarm(' codex = 0 ')).toEqual({ codex: 0 });
  });

  it.each([
    ['codex', /harness=count pairs/],
    ['codex=-1', /harness=count pairs/],
    ['codex=1.5', /harness=count pairs/],
    ['codex=1,', /harness=count pairs/],
    ['nope=1', /unknown harness "nope"\. Known harnesses: .*codex/],
  ])('refuses %s with a usage error', (value, message) => {
    expect(() => parseWarm(value)).toThrow(UsageError);
    expect(() => parseWarm(value)).toThrow(message);
  });
});
