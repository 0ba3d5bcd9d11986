// Checkpoints found again after a restart (docs/architecture/contract.md, "Checkpoints after a
// restart"): a session's `checkpoint` events name the refs their snapshots live on, so a new process
// (a resumed library session, a restarted daemon) can diff and revert those turns, files only, for as
// long as the refs last, and delete them all when the session is forgotten.
import { ReinsError, type ReinsEvent, type RevertOptions, type RevertResult, type SessionDiff } from '@reins/core';
import { measureChanges } from './changes.js';
import { deleteRefs, readRefs, sessionRefsOf } from './refs.js';
import { applyRevert, planRevert, type RecordedTurn } from './revert-files.js';
import { findWorkTree, type WorkTree } from './snapshot.js';

/** One checkpointed turn as its event names it. */
export interface CheckpointEntry {
  turnId: string;
  /** `<ref>/before` and `<ref>/after` hold its snapshots. */
  ref: string;
}

/** The entries of a session's events, oldest first (for a turn id seen twice, the later event counts). */
export function checkpointEntries(events: Iterable<ReinsEvent>): CheckpointEntry[] {
  const entries: CheckpointEntry[] = [];
  for (const event of events) {
    if (event.type !== 'checkpoint' || event.ref === undefined || sessionRefsOf(event.ref) === undefined) continue;
    entries.push({ turnId: event.turnId, ref: event.ref });
  }
  return entries;
}

/** Whether the git work tree holding `cwd` has any checkpoint refs (a cheap look before reading a log). */
export async function hasCheckpointRefs(cwd: string): Promise<boolean> {
  const tree = await findWorkTree(cwd);
  return tree !== undefined && (await readRefs(tree, 'refs/reins/')).size > 0;
}

export class CheckpointHistory {
  private readonly entries: CheckpointEntry[];

  /** `entries` oldest first, as `checkpointEntries` gives them. */
  constructor(private readonly options: { harness: string; cwd: string; entries: CheckpointEntry[] }) {
    this.entries = [...options.entries];
  }

  /** The turns whose refs are intact, oldest first. */
  async turns(): Promise<string[]> {
    const tree = await findWorkTree(this.options.cwd);
    return tree ? (await this.recorded(tree)).map((turn) => turn.turnId) : [];
  }

  /** One turn's changes, or every recorded turn's together (before the first to after the last). */
  async diff(turnId?: string): Promise<SessionDiff> {
    const tree = await this.requireWorkTree('diff');
    const recorded = await this.recorded(tree);
    const first = turnId ? this.find(recorded, turnId, 'diff') : recorded[0];
    const last = turnId ? first : recorded.at(-1);
    if (!first || !last) return { ...(turnId ? { turnId } : {}), changes: [] };
    const measured = await measureChanges(tree, first.before, last.after);
    return { ...(turnId ? { turnId } : {}), changes: measured.changes };
  }

  /**
   * The files as they were before `turnId` (it and every later recorded turn undone); the conversation
   * stays as it is, since the process that held it is gone. The undone turns' refs are deleted.
   */
  async revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    const tree = await this.requireWorkTree('revert');
    const recorded = await this.recorded(tree);
    const target = this.find(recorded, turnId, 'revert');
    const undone = recorded.slice(recorded.indexOf(target));
    const lastKnown = recorded.at(-1)?.after;
    const context = { harness: this.options.harness, label: 'history' };
    const plan = await planRevert(tree, context, undone, lastKnown, !!options.force);
    const files = await applyRevert(tree, target, plan);
    await deleteRefs(
      tree,
      undone.flatMap((turn) => sides(this.refOf(turn.turnId))),
    ).catch(() => {});
    return { turnId, files, conversation: 'unchanged' };
  }

  /** Deletes every ref of the sessions these entries belong to (a deleted or forgotten session). */
  async forget(): Promise<void> {
    const tree = await findWorkTree(this.options.cwd);
    if (!tree) return;
    const folders = new Set(this.entries.map((entry) => sessionRefsOf(entry.ref) as string));
    for (const folder of folders) await deleteRefs(tree, [...(await readRefs(tree, folder)).keys()]);
  }

  private refOf(turnId: string): string {
    return (this.latest(turnId) as CheckpointEntry).ref;
  }

  private latest(turnId: string): CheckpointEntry | undefined {
    return this.entries.filter((entry) => entry.turnId === turnId).at(-1);
  }

  private async recorded(tree: WorkTree): Promise<RecordedTurn[]> {
    const refs = new Map<string, string>();
    for (const folder of new Set(this.entries.map((entry) => sessionRefsOf(entry.ref) as string))) {
      for (const [ref, commit] of await readRefs(tree, folder)) refs.set(ref, commit);
    }
    const recorded: RecordedTurn[] = [];
    for (const { turnId, ref } of this.entries) {
      if (this.refOf(turnId) !== ref) continue; // an earlier entry of a turn id seen again
      const [before, after] = sides(ref).map((side) => refs.get(side));
      if (before && after) recorded.push({ turnId, before, after });
    }
    return recorded;
  }

  private find(recorded: RecordedTurn[], turnId: string, operation: string): RecordedTurn {
    const turn = recorded.find((record) => record.turnId === turnId);
    if (turn) return turn;
    const entry = this.latest(turnId);
    const why = entry
      ? `its refs (${entry.ref}/before, /after) are gone: pruned (a session keeps its newest turns' refs), reverted already, or deleted`
      : 'it has no checkpoint event in this session';
    throw new ReinsError(
      'invalid_input',
      `Turn ${turnId} cannot be ${operation === 'diff' ? 'diffed' : 'reverted'}: ${why}.`,
      {
        harness: this.options.harness,
        operation,
        data: { reason: entry ? 'checkpoint_gone' : 'no_checkpoint', turnId },
      },
    );
  }

  private async requireWorkTree(operation: string): Promise<WorkTree> {
    const tree = await findWorkTree(this.options.cwd);
    if (tree) return tree;
    throw new ReinsError(
      'unsupported_capability',
      `Reins keeps checkpoints in a git work tree or a folder's private repository, and ${this.options.cwd} has neither (any more).`,
      { harness: this.options.harness, operation, data: { reason: 'not_a_work_tree' } },
    );
  }
}

function sides(ref: string): [string, string] {
  return [`${ref}/before`, `${ref}/after`];
}
