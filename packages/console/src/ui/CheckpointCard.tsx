// A turn's checkpoint as a card (docs/architecture/contract.md, "Checkpoints"): the files Reins measured
// changed on disk, each expandable to its unified diff, and Undo, which asks the daemon to revert the
// turn (session/revert); the answer, or the refusal, shows as a line of the transcript.
import { useState } from 'react';
import { checkpointDiffs } from '../model/diff.js';
import type { CheckpointRow } from '../model/transcript.js';
import { FileDiffView } from './ToolCard.js';

export function CheckpointCard({ row, revert }: { row: CheckpointRow; revert: (turnId: string) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [undoing, setUndoing] = useState(false);
  const diffs = checkpointDiffs(row.changes);
  const count = `${row.changes.length}${row.truncated ? '+' : ''} file${row.changes.length === 1 ? '' : 's'}`;
  const undo = async () => {
    setUndoing(true);
    await revert(row.turnId);
    setUndoing(false);
  };
  return (
    <div className="row">
      <div className="card checkpoint" data-testid="checkpoint" data-turn-id={row.turnId}>
        <div className="card-head">
          <button
            type="button"
            className="toggle"
            aria-expanded={open}
            disabled={diffs.length === 0}
            onClick={() => setOpen(!open)}
          >
            <span className="kind">Changes on disk</span>
            <span className="title" data-testid="checkpoint-summary">
              {diffs.length === 0 ? 'no files changed' : `${count}: ${diffs.map((diff) => diff.path).join(', ')}`}
            </span>
          </button>
          {row.reverted ? (
            <span className="tool-status" data-testid="checkpoint-reverted">
              undone
            </span>
          ) : diffs.length > 0 ? (
            <button
              type="button"
              className="button small"
              data-testid="checkpoint-undo"
              disabled={undoing}
              title="Put these files (and any later turn's) back as they were before this turn"
              onClick={() => void undo()}
            >
              {undoing ? 'Undoing…' : 'Undo'}
            </button>
          ) : null}
        </div>
        {open ? (
          <div className="card-body">
            {diffs.map((diff) => (
              <FileDiffView key={`${diff.path}:${diff.kind}`} diff={diff} status="completed" />
            ))}
            {row.truncated ? <div className="diff-note">More files changed than one event lists.</div> : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
