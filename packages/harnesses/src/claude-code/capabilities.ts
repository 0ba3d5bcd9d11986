// What the Claude Code adapter implements: its own module, read by the manifest and the adapter alike,
// so neither imports the other (an import cycle otherwise).
import type { ImplementedCapabilities } from '@reins/core';

export const claudeCodeImplemented: ImplementedCapabilities = {
  resume: true,
  fork: 'native', // --resume --fork-session (the Agent SDK's forkSession) at launch, for spec.resume.fork (2.1.197, 2.1.332)
  interrupt: true,
  queue: true,
  liveModelSwitch: true,
  liveEffortSwitch: 'restart',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'inline',
  structuredOutput: 'native',
  usage: true,
  cost: true,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: true,
  mcpStatus: true, // the Agent SDK's mcpServerStatus() (0.3.332, Claude Code 2.1.332)
  compaction: true,
  subagents: true,
  sandbox: 'native', // posture workspace: its sandbox settings (bubblewrap on Linux), acceptEdits (posture.ts)
  revert: 'native', // a fork kept up to the message before the turn (--resume-session-at, 2.1.332), session.ts
};
