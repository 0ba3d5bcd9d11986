// The init tool names (tool-names.ts) against what they replace, on every init frame of every recorded
// Claude Code and Amp fixture and on lists made to differ only where the fast path could go wrong: names
// that are not strings, holes, and names holding newlines.
import { readdirSync } from 'node:fs';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { sameToolNames, toolNames } from './tool-names.js';

const strings = (list: unknown[]): string[] => list.filter((tool): tool is string => typeof tool === 'string');
/** The comparison translateInit made before: the string names joined by newlines. */
const joinedSame = (sent: unknown[], known: string[] | undefined): boolean =>
  known !== undefined && strings(sent).join('\n') === known.join('\n');

function recordedToolLists(): unknown[][] {
  const lists: unknown[][] = [];
  for (const harness of ['claude-code', 'amp']) {
    const dir = new URL(`../../${harness}/fixtures/`, import.meta.url);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl')))
      for (const { frame } of readFixtureSync(new URL(file, dir).pathname).frames) {
        const init = frame as { type?: unknown; subtype?: unknown; tools?: unknown };
        if (init?.type === 'system' && init.subtype === 'init' && Array.isArray(init.tools)) lists.push(init.tools);
      }
  }
  return lists;
}

describe('init tool names', () => {
  const recorded = recordedToolLists();
  // Holes, non-strings and newlines, and lists one name shorter, longer or renamed.
  const made: unknown[][] = [
    [],
    ['Bash'],
    ['Bash', 7, null, 'Read'],
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
    ['Bash', , 'Read'],
    ['a\nb'],
    ['a', 'b'],
    ['a', 'b\nc'],
    ['a\nb', 'c'],
    [{ name: 'Bash' }],
  ];
  const lists = [...recorded, ...made];
  for (const list of recorded) {
    made.push(
      list.slice(1),
      [...list, 'Extra'],
      list.map((tool, index) => (index === 0 ? `${tool}x` : tool)),
    );
  }

  it('reads init frames from the fixtures', () => {
    expect(recorded.length).toBeGreaterThan(10);
  });

  it('keeps the string names in order, as the filter did', () => {
    for (const list of [...lists, ...made]) expect(toolNames(list)).toEqual(strings(list));
  });

  it('compares as the joined names did, for every pair of lists', () => {
    const all = [...lists, ...made];
    for (const sent of all) {
      expect(sameToolNames(sent, undefined)).toBe(false);
      for (const known of all) {
        const names = strings(known);
        expect(sameToolNames(sent, names)).toBe(joinedSame(sent, names));
      }
    }
  });
});
