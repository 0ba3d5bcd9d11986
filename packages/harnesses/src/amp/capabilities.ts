// What the Amp adapter implements: its own module, read by the manifest and the adapter alike,
// so neither imports the other (an import cycle otherwise).
import type { ImplementedCapabilities } from '@reins/core';

/** Implemented mappings; nothing here was observed against a live Amp (see adapter.ts's header). */
export const AMP_IMPLEMENTED: ImplementedCapabilities = {
  queue: 'adapter',
  tokenDeltas: false, // whole assistant messages; partial-message streaming not requested
  usage: true, // from `result` when Amp sends one
  cost: true,
  subagents: true, // parent_tool_use_id lanes, as in Claude stream-json
  resume: false,
  interrupt: false,
  steer: false,
  liveModelSwitch: false,
  liveEffortSwitch: false,
  reasoningDeltas: false,
  images: false,
  structuredOutput: 'emulated', // the chassis asks for JSON and validates it against the original schema
  approvals: false,
  contextWindow: false,
  sessionList: false,
  history: false,
  mcpStatus: false,
  compaction: false,
  fork: false,
  sandbox: 'reins-bubblewrap', // posture workspace: Reins runs Amp under bubblewrap (runtime/confinement.ts)
};
