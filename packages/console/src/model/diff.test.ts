import type { ToolCallItem } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { fileDiffs, parseUnifiedDiff } from './diff.js';

const tool = (fields: Partial<ToolCallItem>): ToolCallItem => ({
  kind: 'tool_call',
  id: 'x',
  status: 'completed',
  tool: { kind: 'file_change', name: 'apply_patch' },
  input: {},
  ...fields,
});

describe('diffs', () => {
  it('reads a unified diff with line numbers, leaving file headers out', () => {
    const lines = parseUnifiedDiff(
      [
        '--- a/app.ts',
        '+++ b/app.ts',
        '@@ -3,2 +3,3 @@',
        ' keep',
        '-old',
        '+new',
        '+more',
        '\\ No newline at end of file',
      ].join('\n'),
    );
    expect(lines).toEqual([
      { type: 'hunk', text: '@@ -3,2 +3,3 @@' },
      { type: 'ctx', text: 'keep', oldNo: 3, newNo: 3 },
      { type: 'del', text: 'old', oldNo: 4 },
      { type: 'add', text: 'new', newNo: 4 },
      { type: 'add', text: 'more', newNo: 5 },
    ]);
  });

  it("takes Codex's changes: a unified diff for an update, the content for an add", () => {
    const diffs = fileDiffs(
      tool({
        changes: [
          { path: '/w/a.ts', kind: 'update', diff: '@@ -1 +1 @@\n-a\n+b\n' },
          { path: '/w/NOTES.md', kind: 'add', diff: '# Notes\n\nhi\n' },
        ],
      }),
    );
    expect(diffs.map((diff) => [diff.path, diff.kind, diff.source, diff.added, diff.removed])).toEqual([
      ['/w/a.ts', 'update', 'diff', 1, 1],
      ['/w/NOTES.md', 'add', 'diff', 3, 0],
    ]);
  });

  it("reads Claude Code's Write and Edit from the tool input when the change has no diff, and says so", () => {
    const write = fileDiffs(
      tool({
        tool: { kind: 'file_change', name: 'Write' },
        input: { file_path: '/w/n.md', content: 'one\ntwo\n' },
        changes: [{ path: '/w/n.md', kind: 'add' }],
      }),
    );
    expect(write[0]).toMatchObject({ source: 'content', added: 2, removed: 0 });
    const edit = fileDiffs(
      tool({
        tool: { kind: 'file_change', name: 'Edit' },
        input: { file_path: '/w/a.ts', old_string: 'let a = 1;', new_string: 'const a = 1;' },
      }),
    );
    expect(edit[0]).toMatchObject({ path: '/w/a.ts', kind: 'update', source: 'edit', added: 1, removed: 1 });
  });

  it('shows a change with no text as such, and nothing for tools that change no file', () => {
    expect(fileDiffs(tool({ changes: [{ path: '/w/gone', kind: 'delete' }] }))[0]).toMatchObject({
      source: 'none',
      lines: [],
    });
    expect(fileDiffs(tool({ tool: { kind: 'command', name: 'Bash' }, input: { command: 'ls' } }))).toEqual([]);
  });
});
