// What the OpenClaw adapter implements: its own module, read by the manifest and the adapter alike,
// so neither imports the other (an import cycle otherwise).
import type { ImplementedCapabilities } from '@reins/core';

export const OPENCLAW_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'native', // the session key, any gateway process
  interrupt: true,
  steer: 'native', // chat.send queueMode "steer"
  queue: 'adapter',
  liveModelSwitch: true, // sessions.patch {model}
  liveEffortSwitch: true, // sessions.patch {thinkingLevel}
  tokenDeltas: true,
  reasoningDeltas: false,
  images: false,
  usage: true,
  cost: 'provider', // reported by OpenClaw per transcript row
  contextWindow: false,
  sessionList: true,
  history: true,
  compaction: false,
  structuredOutput: 'emulated', // the chassis asks for JSON and validates it against the original schema
  approvals: false,
  fork: false,
  mcpStatus: false,
  subagents: false,
};
