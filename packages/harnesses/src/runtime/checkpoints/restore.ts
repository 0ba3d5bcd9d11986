// Puts files of the work tree back to a checkpoint: files written from the checkpoint through a
// private index (`checkout-index`), files the checkpoint did not have removed (and folders left empty
// by that). Only the listed paths are touched; the user's index is not.
import { readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { git } from './git.js';
import { at, type WorkTree, withPrivateIndex } from './snapshot.js';

export async function restorePaths(
  tree: WorkTree,
  commit: string,
  paths: { write: string[]; remove: string[] },
): Promise<void> {
  for (const relative of paths.remove) {
    const absolute = insideTop(tree, relative);
    await rm(absolute, { force: true });
    await removeEmptyParents(tree.top, path.dirname(absolute));
  }
  if (paths.write.length === 0) return;
  await withPrivateIndex(tree, async (indexFile) => {
    await git(['read-tree', commit], { ...at(tree), indexFile });
    await git(['checkout-index', '--force', '-z', '--stdin'], {
      ...at(tree),
      indexFile,
      input: `${paths.write.join('\0')}\0`,
    });
  });
}

function insideTop(tree: WorkTree, relative: string): string {
  const absolute = path.resolve(tree.top, relative);
  if (!absolute.startsWith(tree.top + path.sep)) throw new Error(`A checkpoint path left the work tree: ${relative}`);
  return absolute;
}

async function removeEmptyParents(top: string, folder: string): Promise<void> {
  for (let current = folder; current.startsWith(top + path.sep); current = path.dirname(current)) {
    const entries = await readdir(current).catch(() => undefined);
    if (!entries || entries.length > 0) return;
    await rmdir(current).catch(() => {});
  }
}
