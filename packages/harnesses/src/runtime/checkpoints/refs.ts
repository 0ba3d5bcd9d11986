// The private refs that keep checkpoints (docs/architecture/contract.md, "Checkpoints"):
// refs/reins/<session>/<turn>/{before,after}, their names, reads, writes and deletions.
import { git } from './git.js';
import { at, type WorkTree } from './snapshot.js';

/** Where a turn's checkpoints live: `<turnRef>/before` and `<turnRef>/after`. */
export function turnRef(sessionId: string, turnId: string): string {
  return `${sessionRefs(sessionId)}${refPart(turnId)}`;
}

export function checkpointRef(sessionId: string, turnId: string, side: 'before' | 'after'): string {
  return `${turnRef(sessionId, turnId)}/${side}`;
}

/** Every ref of one session's checkpoints starts with this. */
export function sessionRefs(sessionId: string): string {
  return `refs/reins/${refPart(sessionId)}/`;
}

/** Keeps a ref name component legal whatever the id holds. */
function refPart(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

/** The session folder (`refs/reins/<session>/`) a turn's ref lives in, or undefined for a name not of ours. */
export function sessionRefsOf(ref: string): string | undefined {
  const match = /^(refs\/reins\/[A-Za-z0-9_-]+\/)[A-Za-z0-9_-]+$/.exec(ref);
  return match?.[1];
}

export async function setRef(tree: WorkTree, ref: string, commit: string): Promise<void> {
  await git(['update-ref', ref, commit], at(tree));
}

/** Deletes refs in one transaction; a ref already gone is no error. */
export async function deleteRefs(tree: WorkTree, refs: string[]): Promise<void> {
  if (refs.length === 0) return;
  const input = `${refs.map((ref) => `delete ${ref}`).join('\n')}\n`;
  await git(['update-ref', '--stdin'], { ...at(tree), input });
}

/** The refs under `prefix` (a folder ending in /) and the commits they point at. */
export async function readRefs(tree: WorkTree, prefix: string): Promise<Map<string, string>> {
  const out = await git(['for-each-ref', '--format=%(objectname) %(refname)', prefix], at(tree));
  const refs = new Map<string, string>();
  for (const line of out.stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}
