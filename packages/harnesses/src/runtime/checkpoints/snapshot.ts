// A work tree's state as a git commit that no branch points at: the user's index copied to a private
// index file, every tracked and untracked (not ignored) file added there, written as a tree and a
// parentless commit. The user's branch, index, stash and files are not touched. A folder outside any
// git work tree gets, when its session asks for checkpoints, a private bare repository under
// REINS_HOME/checkpoints/ instead: nothing is written inside the folder.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, realpath, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { reinsHome } from '../evidence.js';
import { type GitOptions, git } from './git.js';

export interface WorkTree {
  /** The work tree's top folder (paths of changes are relative to it). */
  top: string;
  gitDir: string;
  /** A private repository of a folder that is in no git work tree (git must be told where it is). */
  private?: true;
}

/** Where git runs for `tree`. */
export function at(tree: WorkTree): Pick<GitOptions, 'cwd' | 'repo'> {
  return tree.private ? { cwd: tree.top, repo: { gitDir: tree.gitDir, workTree: tree.top } } : { cwd: tree.top };
}

/**
 * The git work tree holding `cwd`; else the folder's private repository when it has one, or when
 * `createPrivate` asks for one (a session started with checkpoints: true); else undefined (also when
 * git is missing).
 */
export async function findWorkTree(
  cwd: string,
  options: { createPrivate?: boolean } = {},
): Promise<WorkTree | undefined> {
  try {
    const inside = (await mayBeInWorkTree(cwd))
      ? (await git(['rev-parse', '--is-inside-work-tree'], { cwd }).catch(() => undefined))?.stdout.toString().trim()
      : 'false';
    if (inside === 'true') {
      const out = (await git(['rev-parse', '--show-toplevel', '--absolute-git-dir'], { cwd })).stdout.toString();
      const [top, gitDir] = out.split('\n');
      return top && gitDir ? { top, gitDir } : undefined;
    }
    const top = await realpath(cwd);
    const gitDir = privateGitDir(top);
    if (!existsSync(gitDir)) {
      if (!options.createPrivate) return undefined;
      await mkdir(path.dirname(gitDir), { recursive: true });
      await git(['init', '--bare', '--quiet', gitDir], { cwd: top });
    }
    return { top, gitDir, private: true };
  } catch {
    return undefined;
  }
}

/**
 * Whether `cwd` or a folder above it has a `.git` entry (a repository, or a file pointing at one).
 * Without one git cannot find a work tree (git.ts clears every GIT_ variable that could point it
 * elsewhere), so the answer costs a few stats instead of a git process: a session in a plain folder spawned
 * one before its first turn, which waited for it (and a daemon of many such sessions one each). Anything
 * unclear (a folder that cannot be resolved, a stat that fails otherwise) asks git.
 */
export async function mayBeInWorkTree(cwd: string): Promise<boolean> {
  // git walks up from the folder's real path (a symlink into a repository is inside it).
  const real = await realpath(cwd).catch(() => undefined);
  if (real === undefined) return true;
  for (let folder = real; ; folder = path.dirname(folder)) {
    try {
      await stat(path.join(folder, '.git'));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return true;
    }
    if (path.dirname(folder) === folder) return false;
  }
}

/** The private repository of a folder outside any git work tree: one per folder, by its real path. */
export function privateGitDir(folder: string): string {
  const key = createHash('sha256').update(folder).digest('hex').slice(0, 24);
  return path.join(reinsHome(), 'checkpoints', `${key}.git`);
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
  return commitSnapshot(tree, await snapshotTree(tree), message);
}

/** The work tree as it is on disk now, written to the repository's objects as a tree: its id. */
export function snapshotTree(tree: WorkTree): Promise<string> {
  return withPrivateIndex(tree, async (indexFile) => {
    await git(['add', '--all', '--', ':/'], { ...at(tree), indexFile });
    return (await git(['write-tree'], { ...at(tree), indexFile })).stdout.toString().trim();
  });
}

/** A parentless commit of a tree snapshotTree wrote: its id. */
export async function commitSnapshot(tree: WorkTree, treeId: string, message: string): Promise<string> {
  return (await git(['commit-tree', treeId, '-m', message], at(tree))).stdout.toString().trim();
}
