// A work tree's state as a git commit that no branch points at: the user's index copied to a private
// index file, every tracked and untracked (not ignored) file added there, written as a tree and a
// parentless commit. The user's branch, index, stash and files are not touched.
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git } from './git.js';

export interface WorkTree {
  /** The work tree's top folder (paths of changes are relative to it). */
  top: string;
  gitDir: string;
}

/** The git work tree holding `cwd`, or undefined when there is none (or git is missing). */
export async function findWorkTree(cwd: string): Promise<WorkTree | undefined> {
  try {
    const inside = (await git(['rev-parse', '--is-inside-work-tree'], { cwd })).stdout.toString().trim();
    if (inside !== 'true') return undefined;
    const out = (await git(['rev-parse', '--show-toplevel', '--absolute-git-dir'], { cwd })).stdout.toString();
    const [top, gitDir] = out.split('\n');
    return top && gitDir ? { top, gitDir } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` with a private index file, seeded from the user's index (so unchanged files hash fast).
 * The copy keeps the index's own modification time: git trusts an entry's cached stat only when the
 * file is older than the index ("racy git"), and a copy stamped now would make a file edited in the same
 * second as the user's last `git add`, at the same size, look unchanged.
 */
export async function withPrivateIndex<T>(tree: WorkTree, work: (indexFile: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(path.join(tmpdir(), 'reins-checkpoint-'));
  const indexFile = path.join(folder, 'index');
  try {
    await seedIndex(path.join(tree.gitDir, 'index'), indexFile);
    return await work(indexFile);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function seedIndex(userIndex: string, indexFile: string): Promise<void> {
  const times = await stat(userIndex).catch(() => undefined);
  if (!times) return; // a fresh repository has no index yet
  await copyFile(userIndex, indexFile);
  // To the millisecond, rounded down: never newer (a Date from stat rounds to the nearest ms).
  const seconds = (ms: number) => Math.floor(ms) / 1000;
  await utimes(indexFile, seconds(times.atimeMs), seconds(times.mtimeMs));
}

/** The work tree as it is on disk now, as a commit id. */
export async function snapshot(tree: WorkTree, message: string): Promise<string> {
  return withPrivateIndex(tree, async (indexFile) => {
    await git(['add', '--all', '--', ':/'], { cwd: tree.top, indexFile });
    const treeId = (await git(['write-tree'], { cwd: tree.top, indexFile })).stdout.toString().trim();
    const commit = await git(['commit-tree', treeId, '-m', message], { cwd: tree.top });
    return commit.stdout.toString().trim();
  });
}
