// What the Pi adapter implements: its own module, read by the manifest and the adapter alike,
// so neither imports the other (an import cycle otherwise).
import type { ImplementedCapabilities } from '@reins/core';

/** What this adapter maps (docs/architecture/contract.md capabilities); observed comes from evidence only. */
export const PI_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'restart', // a new process with --session <file>
  interrupt: true,
  steer: 'native',
  queue: 'adapter', // Reins queues and prompts after the turn (see header)
  liveModelSwitch: true,
  liveEffortSwitch: true,
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'native', // inline base64; path images are read by Reins
  usage: true,
  cost: 'provider', // Pi reports cost priced from its model table (models.json `cost`)
  contextWindow: true,
  sessionList: true,
  history: true,
  compaction: true,
  structuredOutput: 'emulated', // the chassis asks for JSON and validates it against the original schema
  approvals: false, // Pi has no permission system: tools always run
  fork: 'native', // --fork <file>: a new session file holding a copy of the conversation (0.73.1)
  mcpStatus: false,
  subagents: false,
  sandbox: 'reins-bubblewrap', // posture workspace: Reins runs Pi under bubblewrap (runtime/confinement.ts)
  revert: 'native', // RPC fork before the turn's user message: a new session file (0.73.1), revert.ts
};
