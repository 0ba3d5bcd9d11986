// Two sessions never show the same title in the sidebar.
import { describe, expect, it } from 'vitest';
import { distinctTitles } from './session-titles.js';

const session = (sessionId: string, createdAt: number, title?: string) => ({
  sessionId,
  createdAt,
  harness: 'codex' as const,
  cwd: '/work/repo',
  ...(title ? { title } : {}),
});

describe('distinctTitles', () => {
  it('numbers repeats of a title in creation order and leaves unique ones alone', () => {
    const titles = distinctTitles([
      session('b', 20, 'Fix the build'),
      session('a', 10, 'Fix the build'),
      session('c', 30, 'Write docs'),
      session('d', 40),
      session('e', 50),
    ]);
    expect(Object.fromEntries(titles)).toEqual({
      a: 'Fix the build',
      b: 'Fix the build (2)',
      c: 'Write docs',
      d: 'codex in repo',
      e: 'codex in repo (2)',
    });
  });
});
