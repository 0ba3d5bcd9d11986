// The demo's checks alone: a lane that did what the script says matches every check; the item kinds are compared
// only when there is another lane to compare with, and a lane that wrote something else is told apart.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { compareLanes, type DemoScript } from './demo-compare.js';

const SCRIPT: DemoScript = {
  replies: ['One.', 'Two.'],
  commandOutput: '3 passed',
  fileName: 'N.md',
  fileContent: 'x\n',
};
const item = (value: Record<string, unknown>) => ({ type: 'item.completed', item: { status: 'completed', ...value } });
const stream = (replies: string[], output = '3 passed\n') =>
  [
    { type: 'turn.started' },
    item({ kind: 'agent_message', text: replies[0] }),
    { type: 'turn.completed', outcome: { status: 'completed' } },
    { type: 'turn.started' },
    item({ kind: 'tool_call', tool: { kind: 'command', name: 'sh' }, output: { text: output } }),
    item({ kind: 'agent_message', text: replies[1] }),
    { type: 'turn.completed', outcome: { status: 'completed' } },
  ] as unknown as ReinsEvent[];

describe('compareLanes', () => {
  it('a lane that followed the script matches every check; one lane alone gets no item-kind verdict', () => {
    expect(compareLanes([{ id: 'a', events: stream(['One.', 'Two.']), file: 'x\n' }], SCRIPT)).toEqual([
      { id: 'a', matched: ['turn outcomes', 'replies', 'command output', 'N.md on disk'], differed: [] },
    ]);
  });

  it('tells apart the lane whose reply, output or file differs', () => {
    const [a, b] = compareLanes(
      [
        { id: 'a', events: stream(['One.', 'Two.']), file: 'x\n' },
        { id: 'b', events: stream(['One.', 'Info: done.Two.'], 'nothing'), file: 'y\n' },
      ],
      SCRIPT,
    );
    expect(a?.differed).toEqual([]);
    expect(b?.matched).toEqual(['turn outcomes', 'item kinds']);
    expect(b?.differed).toEqual([
      'replies: turn 2 said "Info: done.Two.", not "Two."',
      `command output: no command's output shows "3 passed"`,
      'N.md on disk: N.md holds "y\\n"',
    ]);
  });
});
