// A turn's checkpoint in the transcript: its row with the measured changes, readable diffs (renames as
// old → new), marked undone with every later turn once session/revert answers, and the answer's line.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { revertText } from '../app/console-state.js';
import { checkpointDiffs } from './diff.js';
import { Transcript } from './transcript.js';

const envelope = { sessionId: 's1', harness: 'codex', at: 0 };
const checkpoint = (seq: number, turnId: string, path: string): ReinsEvent => ({
  ...envelope,
  seq,
  turnId,
  type: 'checkpoint',
  changes: [{ path, kind: 'modified', diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old\n+new\n` }],
  ref: `refs/reins/x/${turnId}`,
});

describe('checkpoint rows', () => {
  it('adds a row per checkpoint; an undo marks that turn and later ones, not earlier ones', () => {
    const transcript = new Transcript();
    transcript.applyAll([
      checkpoint(1, 'turn_1', 'a.txt'),
      checkpoint(2, 'turn_2', 'b.txt'),
      checkpoint(3, 'turn_3', 'c.txt'),
    ]);
    const rows = () => transcript.view().rows.filter((row) => row.kind === 'checkpoint');
    expect(rows().map((row) => [row.turnId, row.reverted])).toEqual([
      ['turn_1', false],
      ['turn_2', false],
      ['turn_3', false],
    ]);
    const before = rows();
    transcript.markReverted('turn_2');
    expect(rows().map((row) => row.reverted)).toEqual([false, true, true]);
    expect(rows()[0]).toBe(before[0]); // an unchanged row keeps its object (views skip it)
    transcript.markReverted('turn_9'); // unknown: nothing changes
    expect(rows().map((row) => row.reverted)).toEqual([false, true, true]);
  });

  it("reads git's unified diffs; a rename shows its old path → the new one; a binary file has no lines", () => {
    const diffs = checkpointDiffs([
      { path: 'a.txt', kind: 'modified', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two\n' },
      { path: 'new.txt', kind: 'renamed', previousPath: 'old.txt' },
      { path: 'logo.png', kind: 'added' },
    ]);
    expect(diffs.map((diff) => [diff.path, diff.kind, diff.movePath, diff.added, diff.removed, diff.source])).toEqual([
      ['a.txt', 'update', undefined, 1, 0, 'diff'],
      ['old.txt', 'move', 'new.txt', 0, 0, 'none'],
      ['logo.png', 'add', undefined, 0, 0, 'none'],
    ]);
    expect(diffs[0]?.lines.at(-1)).toEqual({ type: 'add', text: 'two', newNo: 2 });
  });

  it('says what an undo put back and what happened to the conversation', () => {
    expect(revertText({ turnId: 'turn_2', files: ['a.txt', 'b.txt'], conversation: 'unchanged' })).toBe(
      'Undid turn_2: put back a.txt, b.txt; the conversation is unchanged (files only).',
    );
    expect(revertText({ turnId: 'turn_1', files: [], conversation: 'reverted' })).toBe(
      'Undid turn_1: no file needed putting back; the conversation went back too.',
    );
  });
});
