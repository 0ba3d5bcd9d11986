// One session's checkpoints (docs/architecture/contract.md, "Checkpoints"): the work tree recorded
// before and after every turn under refs/reins/<session>/<turn>, the `checkpoint` event after each
// turn's `turn.completed`, `Session.diff` and the files' side of `Session.revert`. Snapshots run one
// after another, so a turn's "before" is taken only after the previous turn's "after".
import { type PayloadOf, ReinsError, type RevertOptions, type RevertResult, type SessionDiff } from '@reins/core';
import { changedPaths, measureChanges } from './changes.js';
import { restorePaths } from './restore.js';
import { checkpointRef, deleteRef, findWorkTree, setRef, snapshot, type WorkTree } from './snapshot.js';

export interface CheckpointSink {
  harness: string;
  sessionId: string;
  cwd: string;
  /** Emits a turn's `checkpoint` event (its envelope turnId is `turnId`), or a warning notice (no turn). */
  emit(payload: PayloadOf<'checkpoint'> | PayloadOf<'notice'>, turnId?: string): void;
}

interface TurnRecord {
  turnId: string;
  before?: string;
  after?: string;
}

/** What the harness did with the conversation when asked to go back before `turnIds[0]`. */
export type ConversationRevert = (turnIds: string[]) => Promise<RevertResult['conversation']>;

export class TurnCheckpoints {
  private workTree: Promise<WorkTree | undefined> | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly turns: TurnRecord[] = [];
  /** The state Reins last measured or restored: a file differing from it was changed by someone else. */
  private lastKnown: string | undefined;
  private warned = false;

  constructor(private readonly sink: CheckpointSink) {}

  /** Records the work tree before a turn; resolves once recorded (or failed: a turn never waits on an error). */
  beforeTurn(turnId: string): Promise<void> {
    const record: TurnRecord = { turnId };
    this.turns.push(record);
    return this.enqueue(async (tree) => {
      record.before = await snapshot(tree, `reins ${this.sink.sessionId} ${turnId} before`);
      await setRef(tree, checkpointRef(this.sink.sessionId, turnId, 'before'), record.before);
    });
  }

  /** Records the work tree after a turn's terminal and emits its `checkpoint` event. */
  afterTurn(turnId: string): void {
    const record = this.turns.find((turn) => turn.turnId === turnId);
    if (!record) return;
    void this.enqueue(async (tree) => {
      if (!record.before) return;
      record.after = await snapshot(tree, `reins ${this.sink.sessionId} ${turnId} after`);
      this.lastKnown = record.after;
      await setRef(tree, checkpointRef(this.sink.sessionId, turnId, 'after'), record.after);
      const measured = await measureChanges(tree, record.before, record.after);
      this.sink.emit(
        { type: 'checkpoint', changes: measured.changes, ...(measured.truncated ? { truncated: true } : {}) },
        turnId,
      );
    });
  }

  /** Resolves when every snapshot asked for so far is done. */
  async settled(): Promise<void> {
    await this.chain;
  }

  async diff(turnId?: string): Promise<SessionDiff> {
    const tree = await this.requireWorkTree('diff');
    await this.settled();
    const recorded = this.turns.filter((turn) => turn.before && turn.after);
    const first = turnId ? this.recorded(turnId, 'diff') : recorded[0];
    const last = turnId ? first : recorded.at(-1);
    if (!first?.before || !last?.after) return { changes: [] };
    const measured = await measureChanges(tree, first.before, last.after);
    return { ...(turnId ? { turnId } : {}), changes: measured.changes };
  }

  /**
   * Puts the files back as they were before `turnId`, undoing it and every later turn. Refuses when a
   * file those turns changed was changed since by someone else, unless `force`. `conversation` runs
   * after the checks and before any file is touched, so its failure changes nothing.
   */
  async revert(turnId: string, options: RevertOptions, conversation: ConversationRevert): Promise<RevertResult> {
    const tree = await this.requireWorkTree('revert');
    await this.settled();
    const target = this.recorded(turnId, 'revert');
    const index = this.turns.indexOf(target);
    const undone = this.turns.slice(index);
    const touched = new Set<string>();
    for (const turn of undone) {
      if (!turn.before || !turn.after) continue;
      for (const change of await changedPaths(tree, turn.before, turn.after)) touched.add(change.path);
    }
    const now = await snapshot(tree, `reins ${this.sink.sessionId} before revert of ${turnId}`);
    if (!options.force && this.lastKnown) {
      const changedSince = (await changedPaths(tree, this.lastKnown, now)).map((change) => change.path);
      const conflicts = changedSince.filter((path) => touched.has(path));
      if (conflicts.length > 0) throw changedSinceError(this.sink.harness, turnId, conflicts);
    }
    const base = target.before as string;
    const differing = await changedPaths(tree, base, now);
    const write = differing.filter((c) => touched.has(c.path) && c.kind !== 'added').map((c) => c.path);
    const remove = differing.filter((c) => touched.has(c.path) && c.kind === 'added').map((c) => c.path);
    const outcome = await conversation(undone.map((turn) => turn.turnId));
    await restorePaths(tree, base, { write, remove });
    this.turns.splice(index);
    this.lastKnown = await snapshot(tree, `reins ${this.sink.sessionId} after revert of ${turnId}`);
    for (const turn of undone) {
      for (const side of ['before', 'after'] as const) {
        await deleteRef(tree, checkpointRef(this.sink.sessionId, turn.turnId, side)).catch(() => {});
      }
    }
    return { turnId, files: [...write, ...remove].sort(), conversation: outcome };
  }

  private recorded(turnId: string, operation: string): TurnRecord {
    const turn = this.turns.find((record) => record.turnId === turnId);
    if (!turn?.before || !turn.after) {
      throw new ReinsError(
        'invalid_input',
        `Turn ${turnId} has no checkpoint in this session (unknown, still running, reverted already, or its snapshot failed); pick a turn from its checkpoint events.`,
        { harness: this.sink.harness, operation, data: { reason: 'no_checkpoint', turnId } },
      );
    }
    return turn;
  }

  private findWorkTree(): Promise<WorkTree | undefined> {
    this.workTree ??= findWorkTree(this.sink.cwd);
    return this.workTree;
  }

  private async requireWorkTree(operation: string): Promise<WorkTree> {
    const tree = await this.findWorkTree();
    if (tree) return tree;
    throw new ReinsError(
      'unsupported_capability',
      `Reins keeps checkpoints only for a session whose cwd is in a git work tree, and ${this.sink.cwd} is not in one (run git init there to have them).`,
      { harness: this.sink.harness, operation, data: { reason: 'not_a_work_tree' } },
    );
  }

  /** Runs snapshot work after everything queued before it; an error becomes one warning notice, never a failed turn. */
  private enqueue(work: (tree: WorkTree) => Promise<void>): Promise<void> {
    const next = this.chain.then(async () => {
      const tree = await this.findWorkTree();
      if (!tree) return;
      try {
        await work(tree);
      } catch (error) {
        this.warnOnce(error);
      }
    });
    this.chain = next;
    return next;
  }

  private warnOnce(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    const detail = error instanceof Error ? error.message : String(error);
    this.sink.emit({
      type: 'notice',
      kind: 'warning',
      message: `Reins could not record a checkpoint: ${detail}`,
      data: { reason: 'checkpoint_failed' },
    });
  }
}

function changedSinceError(harness: string, turnId: string, paths: string[]): ReinsError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');
  return new ReinsError(
    'invalid_input',
    `Reverting ${turnId} would overwrite changes made since Reins' last checkpoint to ${shown}; save them elsewhere, or revert with force: true to lose them.`,
    { harness, operation: 'revert', data: { reason: 'changed_since', paths } },
  );
}
