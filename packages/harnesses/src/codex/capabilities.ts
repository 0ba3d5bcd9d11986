// What the Codex adapter implements: its own module, read by the manifest and the adapter alike,
// so neither imports the other (an import cycle otherwise).
import type { ImplementedCapabilities } from '@reins/core';

/** What this adapter maps (the first of a capability's three layers: implemented, advertised, observed). */
export const CODEX_IMPLEMENTED: ImplementedCapabilities = {
  resume: true,
  fork: 'native', // thread/fork (0.171.0) at thread open, for spec.resume.fork
  interrupt: true,
  steer: 'native',
  queue: 'adapter',
  // turn/start takes model and effort for "this turn and subsequent turns": they apply at the next turn.
  liveModelSwitch: 'next_turn',
  liveEffortSwitch: 'next_turn',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'path',
  structuredOutput: 'native',
  usage: true,
  cost: false,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: true,
  mcpStatus: true, // mcpServerStatus/list + mcpServer/startupStatus/updated (0.171.0)
  compaction: true,
  subagents: true,
  sandbox: 'native', // posture workspace: thread/start sandbox workspace-write, network off (0.171.0)
  revert: 'native', // thread/revert before the turn (0.171.0), files by Reins' checkpoints
};
