import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundDiff, measureChanges, parseNameStatus, splitPatch } from './changes.js';
import { findWorkTree, snapshot, withPrivateIndex } from './snapshot.js';
import { makeTestRepo } from './test-repo.js';

describe('checkpoint changes', () => {
  it("reads git's -z name-status, renames with their old path", () => {
    expect(parseNameStatus('M\0a b.txt\0R087\0old.txt\0new.txt\0A\0x\0D\0y\0T\0link\0')).toEqual([
      { kind: 'modified', path: 'a b.txt' },
      { kind: 'renamed', path: 'new.txt', previousPath: 'old.txt' },
      { kind: 'added', path: 'x' },
      { kind: 'deleted', path: 'y' },
      { kind: 'modified', path: 'link' },
    ]);
  });

  it('splits a patch per file even when a content line mentions diff --git', () => {
    const first = 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-diff --git x\n+diff --git y\n';
    const second = 'diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-1\n+2\n';
    expect(splitPatch(first + second)).toEqual([first, second]);
    expect(splitPatch('')).toEqual([]);
  });

  it('cuts a long diff on a line end with a marker saying how much is missing', () => {
    const diff = `${'+line\n'.repeat(100)}`;
    const cut = boundDiff(diff, 60);
    expect(cut.startsWith('+line\n'.repeat(10))).toBe(true);
    expect(cut).toMatch(/\\ reins: diff truncated, 540 more bytes/);
    expect(boundDiff(diff, 10_000)).toBe(diff);
  });

  it('bounds a huge measured diff and keeps every path', async () => {
    const repo = makeTestRepo();
    try {
      const tree = await findWorkTree(repo.dir);
      if (!tree) throw new Error('no work tree');
      const before = await snapshot(tree, 'before');
      repo.write(
        'huge.txt',
        'x'.repeat(200_000).replace(/x{100}/g, (run) => `${run}\n`),
      );
      repo.write('small.txt', 'small\n');
      const after = await snapshot(tree, 'after');
      const limits = { fileDiffBytes: 4096, patchBytes: 1024 * 1024, changes: 10 };
      const { changes, truncated } = await measureChanges(tree, before, after, limits);
      expect(truncated).toBe(false);
      expect(changes.map((change) => change.path)).toEqual(['huge.txt', 'small.txt']);
      expect(Buffer.byteLength(changes[0]?.diff ?? '')).toBeLessThan(4096 + 200);
      expect(changes[0]?.diff).toMatch(/reins: diff truncated/);
      expect(changes[1]?.diff).toContain('+small');
      const capped = await measureChanges(tree, before, after, { fileDiffBytes: 4096, patchBytes: 2048, changes: 1 });
      expect(capped.truncated).toBe(true);
      expect(capped.changes).toHaveLength(1);
      expect(capped.changes[0]?.diff).toMatch(/reins: diff truncated/);
    } finally {
      repo.remove();
    }
  });

  it("seeds the private index with the user's index and its modification time (git's racy-entry check needs it)", async () => {
    const repo = makeTestRepo();
    try {
      const tree = await findWorkTree(repo.dir);
      if (!tree) throw new Error('no work tree');
      const user = statSync(join(repo.dir, '.git', 'index'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const seeded = await withPrivateIndex(tree, async (indexFile) => statSync(indexFile));
      expect(seeded.size).toBe(user.size);
      // utimes keeps milliseconds: the copy is at most 1 ms older, never newer (older only makes git check more).
      expect(seeded.mtimeMs).toBeLessThanOrEqual(user.mtimeMs);
      expect(user.mtimeMs - seeded.mtimeMs).toBeLessThan(1);
    } finally {
      repo.remove();
    }
  });
});
