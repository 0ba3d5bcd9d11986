// fuzzyFileSearch's matcher and the .gitignore subset it honours: pure, no files.
import { describe, expect, it } from 'vitest';
import { fuzzyMatch } from './fuzzy-match.js';
import { isIgnored, parseIgnoreFile } from './ignore-rules.js';

describe('fuzzyMatch', () => {
  it('matches the query characters in order, case-insensitively, with their positions', () => {
    expect(fuzzyMatch('ZeB', 'notes/zebra.txt')?.indices).toEqual([6, 7, 8]);
    expect(fuzzyMatch('nzt', 'notes/zebra.txt')?.indices).toEqual([0, 6, 12]);
    expect(fuzzyMatch('bez', 'notes/zebra.txt')).toBeNull();
    expect(fuzzyMatch('', 'notes/zebra.txt')).toBeNull();
  });

  it('ignores spaces in the query', () => {
    expect(fuzzyMatch('zeb txt', 'notes/zebra.txt')).not.toBeNull();
  });

  it('prefers a word start to an earlier scattered hit', () => {
    // The `r` of `src` comes first, but `readme` starts a word.
    expect(fuzzyMatch('rd', 'src/readme.md')?.indices).toEqual([4, 7]);
  });

  it('ranks a run in the file name above the same letters scattered over folders', () => {
    const tight = fuzzyMatch('zebra', 'notes/zebra-findme.txt');
    const scattered = fuzzyMatch('zebra', 'z/e/b/r/a.txt');
    const inFolder = fuzzyMatch('zebra', 'zebra/notes.txt');
    expect(tight && scattered && inFolder).toBeTruthy();
    expect(tight?.score).toBeGreaterThan(scattered?.score ?? 0);
    expect(tight?.score).toBeGreaterThan(0);
  });

  it('ranks the shorter of two equally good paths first', () => {
    const short = fuzzyMatch('main', 'src/main.ts');
    const long = fuzzyMatch('main', 'packages/deep/folder/src/main.ts');
    expect(short?.score).toBeGreaterThan(long?.score ?? 0);
  });

  it('counts positions in characters, not UTF-16 units', () => {
    expect(fuzzyMatch('b', '😀/b.txt')?.indices).toEqual([2]);
    // `t` starts the file name after an astral folder name, as in a plain one: the same score.
    expect(fuzzyMatch('t', '😀/t.txt')?.score).toBe(fuzzyMatch('t', 'a/t.txt')?.score);
  });
});

describe('.gitignore rules', () => {
  const rules = parseIgnoreFile(
    ['# comment', '', 'node_modules/', '*.log', '!keep.log', '/build', 'docs/*.tmp', '**/cache/**', 'a?c'].join('\n'),
    '',
  );
  const ignored = (path: string, folder = false) => isIgnored(rules, path, folder);

  it('ignores a name at any depth, a folder-only rule only for folders', () => {
    expect(ignored('node_modules', true)).toBe(true);
    expect(ignored('pkg/node_modules', true)).toBe(true);
    expect(ignored('node_modules', false)).toBe(false);
  });

  it('globs, negation (the last rule deciding), anchoring and **', () => {
    expect(ignored('x/debug.log')).toBe(true);
    expect(ignored('keep.log')).toBe(false);
    expect(ignored('build', true)).toBe(true);
    expect(ignored('src/build', true)).toBe(false);
    expect(ignored('docs/a.tmp')).toBe(true);
    expect(ignored('docs/sub/a.tmp')).toBe(false);
    expect(ignored('x/cache/y.txt')).toBe(true);
    expect(ignored('abc')).toBe(true);
    expect(ignored('a/c')).toBe(false);
    expect(ignored('src/main.ts')).toBe(false);
  });

  it("a nested .gitignore's rules apply below its folder only", () => {
    const nested = parseIgnoreFile('secret.txt\n/local\n', 'pkg');
    expect(isIgnored(nested, 'pkg/secret.txt', false)).toBe(true);
    expect(isIgnored(nested, 'pkg/deep/secret.txt', false)).toBe(true);
    expect(isIgnored(nested, 'secret.txt', false)).toBe(false);
    expect(isIgnored(nested, 'pkg/local', true)).toBe(true);
    expect(isIgnored(nested, 'pkg/deep/local', true)).toBe(false);
  });
});
