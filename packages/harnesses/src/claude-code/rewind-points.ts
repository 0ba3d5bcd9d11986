// Per turn, where a revert can take Claude Code's conversation back to: the last top-level assistant
// message before the turn (its `uuid`, which `--resume-session-at` accepts), or the conversation's start
// for the first turn of a new one (docs/architecture/contract.md, "Checkpoints").
import type { RewindPoint } from './conversation.js';
import type { SDKMessage } from './wire.js';

export class RewindPoints {
  /** Where the conversation ends right now; undefined when Reins does not know (a resume's history). */
  private tip: RewindPoint | undefined;
  /** A structured turn runs: it ends on a tool result, not an assistant message, so no point inside it fits. */
  private frozen = false;
  private readonly before = new Map<string, RewindPoint>();

  /** `empty`: the conversation starts with no history Reins did not see (a new one or a spec's fork). */
  constructor(empty: boolean) {
    this.tip = empty ? { kind: 'start' } : undefined;
  }

  /** Every SDK message of the query; never throws. */
  observe(message: SDKMessage): void {
    if (this.frozen || message.type !== 'assistant' || message.parent_tool_use_id !== null) return;
    if (typeof message.uuid === 'string') this.tip = { kind: 'message', uuid: message.uuid };
  }

  /**
   * A turn Reins sent begins: it goes back to the current tip. A structured turn's end is no assistant
   * message (the Agent SDK: fork at its last entry, which Reins does not see), so after one the tip is unknown.
   */
  turnBegan(turnId: string, structured: boolean): void {
    if (this.tip) this.before.set(turnId, this.tip);
    this.frozen = structured;
    if (structured) this.tip = undefined;
  }

  pointBefore(turnId: string): RewindPoint | undefined {
    return this.before.get(turnId);
  }

  /** The conversation went back to `point`: the reverted turns are gone from it. */
  rewound(turnIds: readonly string[], point: RewindPoint): void {
    for (const turnId of turnIds) this.before.delete(turnId);
    this.tip = point;
    this.frozen = false;
  }
}
