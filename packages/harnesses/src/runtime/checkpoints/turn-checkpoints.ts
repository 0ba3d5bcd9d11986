// One session's checkpoints (docs/architecture/contract.md, "Checkpoints"): the work tree recorded
// before and after every turn under refs/reins/<session>/<turn>, the `checkpoint` event after each
// turn's `turn.completed`, `Session.diff` and the files' side of `Session.revert`. Snapshots run one
// after another, so a turn's "before" is taken only after the previous turn's "after". The refs are the
// truth: a turn whose refs are gone (pruned, reverted, deleted by hand) has no checkpoint any more.
import { type PayloadOf, ReinsError, type RevertOptions, type RevertResult, type SessionDiff } from '@reins/core';
import { measureChanges } from './changes.js';
import { checkpointRef, deleteRefs, readRefs, sessionRefs, setRef, turnRef } from './refs.js';
import { applyRevert, planRevert, type RecordedTurn } from './revert-files.js';
import { commitSnapshot, findWorkTree, snapshot, snapshotTree, type WorkTree } from './snapshot.js';

/** Turns whose refs a session keeps; older ones are pruned (docs/architecture/contract.md, "Checkpoints"). */
export const DEFAULT_KEEP_TURNS = 50;

export interface CheckpointSink {
  harness: string;
  sessionId: string;
  cwd: string;
  /** Outside a git work tree, keep them in the folder's private repository (spec.checkpoints: true). */
  anyFolder?: boolean;
  /** Turns whose refs are kept (newest first); default DEFAULT_KEEP_TURNS. */
  keepTurns?: number;
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
  /** Turns whose refs prune() deleted: asked for, they are gone rather than unknown. */
  private readonly pruned = new Set<string>();
  /** The state Reins last measured or restored: a file differing from it was changed by someone else. */
  private lastKnown: string | undefined;
  private warned = false;

  constructor(private readonly sink: CheckpointSink) {}

  /**
   * Records the work tree before a turn; resolves once its state is in git's objects (or failed: a
   * turn never waits on an error). The turn waits for that much only: the commit and the ref that
   * name the state follow in the chain, before anything queued later (each is a git process, and
   * together they were half of what a turn in a work tree waited for).
   */
  beforeTurn(turnId: string): Promise<void> {
    const record: TurnRecord = { turnId };
    this.turns.push(record);
    let stateWritten: () => void = () => {};
    const written = new Promise<void>((resolve) => {
      stateWritten = resolve;
    });
    // `done` answers where no state is written: no work tree, or a snapshot that failed (a warning).
    const done = this.enqueue(async (tree) => {
      const treeId = await snapshotTree(tree);
      stateWritten();
      record.before = await commitSnapshot(tree, treeId, `reins ${this.sink.sessionId} ${turnId} before`);
      await setRef(tree, checkpointRef(this.sink.sessionId, turnId, 'before'), record.before);
    });
    return Promise.race([written, done]);
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
      const ref = turnRef(this.sink.sessionId, turnId);
      this.sink.emit(
        { type: 'checkpoint', changes: measured.changes, ...(measured.truncated ? { truncated: true } : {}), ref },
        turnId,
      );
      await this.prune(tree);
    });
  }

  /** Deletes the refs of the oldest turns beyond keepTurns; those turns can no longer be diffed or reverted. */
  private async prune(tree: WorkTree): Promise<void> {
    const kept = this.turns.filter((turn) => turn.after);
    const excess = kept.length - (this.sink.keepTurns ?? DEFAULT_KEEP_TURNS);
    if (excess <= 0) return;
    const pruned = kept.slice(0, excess);
    await deleteRefs(
      tree,
      pruned.flatMap((turn) => this.refsOf(turn.turnId)),
    );
    for (const turn of pruned) {
      this.turns.splice(this.turns.indexOf(turn), 1);
      this.pruned.add(turn.turnId);
    }
  }

  private refsOf(turnId: string): string[] {
    return [checkpointRef(this.sink.sessionId, turnId, 'before'), checkpointRef(this.sink.sessionId, turnId, 'after')];
  }

  /** Resolves when every snapshot asked for so far is done. */
  async settled(): Promise<void> {
    await this.chain;
  }

  async diff(turnId?: string): Promise<SessionDiff> {
    const tree = await this.requireWorkTree('diff');
    await this.settled();
    const recorded = await this.withRefs(tree);
    const first = turnId ? this.recorded(recorded, turnId, 'diff') : recorded[0];
    const last = turnId ? first : recorded.at(-1);
    if (!first || !last) return { changes: [] };
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
    const recorded = await this.withRefs(tree);
    const target = this.recorded(recorded, turnId, 'revert');
    const undone = recorded.slice(recorded.indexOf(target));
    const label = this.sink.sessionId;
    const plan = await planRevert(tree, { harness: this.sink.harness, label }, undone, this.lastKnown, !!options.force);
    const outcome = await conversation(undone.map((turn) => turn.turnId));
    const files = await applyRevert(tree, target, plan);
    this.turns.splice(this.turns.findIndex((turn) => turn.turnId === turnId));
    this.lastKnown = await snapshot(tree, `reins ${label} after revert of ${turnId}`);
    await deleteRefs(
      tree,
      undone.flatMap((turn) => this.refsOf(turn.turnId)),
    ).catch(() => {});
    return { turnId, files, conversation: outcome };
  }

  /** The turns recorded before and after whose refs still point where this session put them. */
  private async withRefs(tree: WorkTree): Promise<RecordedTurn[]> {
    const refs = await readRefs(tree, sessionRefs(this.sink.sessionId));
    const recorded: RecordedTurn[] = [];
    for (const { turnId, before, after } of this.turns) {
      const [beforeRef, afterRef] = this.refsOf(turnId) as [string, string];
      if (before && after && refs.get(beforeRef) === before && refs.get(afterRef) === after) {
        recorded.push({ turnId, before, after });
      }
    }
    return recorded;
  }

  private recorded(recorded: RecordedTurn[], turnId: string, operation: string): RecordedTurn {
    const turn = recorded.find((record) => record.turnId === turnId);
    if (turn) return turn;
    const gone = this.pruned.has(turnId) || this.turns.some((record) => record.turnId === turnId && record.after);
    const why = gone
      ? `its refs (${turnRef(this.sink.sessionId, turnId)}/before, /after) are gone: pruned (a session keeps its newest ${this.sink.keepTurns ?? DEFAULT_KEEP_TURNS} turns' refs) or deleted`
      : 'no checkpoint in this session (unknown, still running, reverted already, or its snapshot failed); pick a turn from its checkpoint events';
    throw new ReinsError(
      'invalid_input',
      `Turn ${turnId} has ${gone ? 'no checkpoint any more' : 'no checkpoint'}: ${why}.`,
      {
        harness: this.sink.harness,
        operation,
        data: { reason: gone ? 'checkpoint_gone' : 'no_checkpoint', turnId },
      },
    );
  }

  private findWorkTree(): Promise<WorkTree | undefined> {
    this.workTree ??= findWorkTree(this.sink.cwd, { createPrivate: this.sink.anyFolder === true });
    return this.workTree;
  }

  private async requireWorkTree(operation: string): Promise<WorkTree> {
    const tree = await this.findWorkTree();
    if (tree) return tree;
    throw new ReinsError(
      'unsupported_capability',
      `Reins keeps checkpoints for a session whose cwd is in a git work tree, and ${this.sink.cwd} is not in one: start the session with checkpoints: true to keep them in a private repository under REINS_HOME (or run git init there).`,
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
