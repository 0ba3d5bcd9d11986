// The files' side of a revert, shared by a live session's checkpoints and a reloaded history
// (docs/architecture/contract.md, "Checkpoints"): which paths go back, the refusal over changes made
// since Reins' last checkpoint, and the restore itself.
import { ReinsError } from '@reins/core';
import { changedPaths } from './changes.js';
import { restorePaths } from './restore.js';
import { snapshot, type WorkTree } from './snapshot.js';

/** A turn with both snapshots recorded. */
export interface RecordedTurn {
  turnId: string;
  before: string;
  after: string;
}

export interface RevertPlan {
  /** The work tree as it is now. */
  now: string;
  write: string[];
  remove: string[];
}

/**
 * What reverting `undone[0]` (and every later turn in `undone`) would touch; refuses when a file those
 * turns changed differs from `lastKnown` (Reins' last measured state), unless `force`.
 */
export async function planRevert(
  tree: WorkTree,
  context: { harness: string; label: string },
  undone: RecordedTurn[],
  lastKnown: string | undefined,
  force: boolean,
): Promise<RevertPlan> {
  const target = undone[0] as RecordedTurn;
  const touched = new Set<string>();
  for (const turn of undone) {
    for (const change of await changedPaths(tree, turn.before, turn.after)) touched.add(change.path);
  }
  const now = await snapshot(tree, `reins ${context.label} before revert of ${target.turnId}`);
  if (!force && lastKnown) {
    const changedSince = (await changedPaths(tree, lastKnown, now)).map((change) => change.path);
    const conflicts = changedSince.filter((path) => touched.has(path));
    if (conflicts.length > 0) throw changedSinceError(context.harness, target.turnId, conflicts);
  }
  const differing = (await changedPaths(tree, target.before, now)).filter((change) => touched.has(change.path));
  return {
    now,
    write: differing.filter((change) => change.kind !== 'added').map((change) => change.path),
    remove: differing.filter((change) => change.kind === 'added').map((change) => change.path),
  };
}

/** Puts the planned paths back as they were before the target turn. */
export async function applyRevert(tree: WorkTree, target: RecordedTurn, plan: RevertPlan): Promise<string[]> {
  await restorePaths(tree, target.before, { write: plan.write, remove: plan.remove });
  return [...plan.write, ...plan.remove].sort();
}

function changedSinceError(harness: string, turnId: string, paths: string[]): ReinsError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');
  return new ReinsError(
    'invalid_input',
    `Reverting ${turnId} would overwrite changes made since Reins' last checkpoint to ${shown}; save them elsewhere, or revert with force: true to lose them.`,
    { harness, operation: 'revert', data: { reason: 'changed_since', paths } },
  );
}
