// Tool calls as ACP shows them: `diff` content for file changes, also where the harness reported no
// diff and its tool input says what changed (Claude Code's Write and Edit). Every update checked
// against the ACP SDK's schema.
import type { ToolCallItem } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { acpSchema } from '../../test/support/acp-schema.js';
import { finishTool, inputDiffs } from './tools.js';
import type { SessionUpdate } from './wire.js';

function finished(item: ToolCallItem): SessionUpdate & { content?: unknown[] } {
  const [update] = finishTool(new Map(), item, undefined);
  expect(acpSchema().check('SessionNotification', { sessionId: 's', update })).toBeUndefined();
  return update as SessionUpdate & { content?: unknown[] };
}

const write = (extra: Partial<ToolCallItem>): ToolCallItem => ({
  kind: 'tool_call',
  id: 'w1',
  status: 'completed',
  tool: { kind: 'file_change', name: 'Write' },
  input: { file_path: '/work/a.txt', content: 'hello\n' },
  changes: [{ path: '/work/a.txt', kind: 'add' }],
  ...extra,
});

describe('diff content from a tool input (Claude Code 2.1.197 reports no diff)', () => {
  it('a Write that made a file: the whole text is new', () => {
    expect(finished(write({})).content).toEqual([
      { type: 'diff', path: '/work/a.txt', oldText: null, newText: 'hello\n' },
    ]);
  });

  it('a Write that replaced a file: the old text from its result, else no diff at all', () => {
    const replaced = write({
      changes: [{ path: '/work/a.txt', kind: 'update' }],
      output: { structured: { type: 'update', originalFile: 'bye\n' } },
    });
    expect(finished(replaced).content).toEqual([
      { type: 'diff', path: '/work/a.txt', oldText: 'bye\n', newText: 'hello\n' },
    ]);
    expect(finished(write({ changes: [{ path: '/work/a.txt', kind: 'update' }] })).content).toBeUndefined();
  });

  it('an Edit and a MultiEdit: each replaced text and its replacement', () => {
    const edit = write({
      tool: { kind: 'file_change', name: 'Edit' },
      input: { file_path: '/work/a.txt', old_string: 'a', new_string: 'b' },
      changes: [{ path: '/work/a.txt', kind: 'update' }],
    });
    expect(finished(edit).content).toEqual([{ type: 'diff', path: '/work/a.txt', oldText: 'a', newText: 'b' }]);
    const multi = write({
      input: {
        file_path: '/work/a.txt',
        edits: [
          { old_string: '1', new_string: '2' },
          { old_string: '3', new_string: '4' },
        ],
      },
      changes: [{ path: '/work/a.txt', kind: 'update' }],
    });
    expect(inputDiffs(multi, { path: '/work/a.txt', kind: 'update' })).toEqual([
      { oldText: '1', newText: '2' },
      { oldText: '3', newText: '4' },
    ]);
  });

  it('a reported diff wins, and a change of several files is not guessed from one input', () => {
    const reported = write({ changes: [{ path: '/work/a.txt', kind: 'update', diff: '@@ -1 +1 @@\n-x\n+y\n' }] });
    expect(finished(reported).content).toEqual([{ type: 'diff', path: '/work/a.txt', oldText: 'x', newText: 'y' }]);
    const several = write({
      changes: [
        { path: '/work/a.txt', kind: 'add' },
        { path: '/work/b.txt', kind: 'add' },
      ],
    });
    expect(finished(several).content).toBeUndefined();
  });

  it('cuts a tool input nested too deep to write', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const update = finished({
      kind: 'tool_call',
      id: 'd',
      status: 'completed',
      tool: { kind: 'other', name: 'Odd' },
      input: deep,
    });
    expect(() => JSON.stringify(update)).not.toThrow();
  });
});
