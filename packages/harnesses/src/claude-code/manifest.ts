// Claude Code (through the Agent SDK, on the discovered `claude` binary): what Reins knows without
// loading the adapter (and with it the Agent SDK).
import type { ImplementedCapabilities } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { claudeBinarySpec } from './discovery.js';
import { CLAUDE_CODE_CONFORMANCE } from './testing/conformance.js';
import { CLAUDE_CODE_PIN } from './testing/pin.js';

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

export const CLAUDE_CODE_MANIFEST: HarnessManifest = {
  id: 'claude-code',
  displayName: 'Claude Code',
  binary: claudeBinarySpec,
  install: 'npm install -g @anthropic-ai/claude-code',
  npmPackage: '@anthropic-ai/claude-code',
  implemented: claudeCodeImplemented,
  testedVersions: ['2.1.197', '2.1.332'],
  testing: {
    pin: CLAUDE_CODE_PIN,
    conformance: CLAUDE_CODE_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    tools: {
      shell: [{ name: 'Bash', args: 'command' }],
      write: [{ name: 'Write', args: { kind: 'content', pathKey: 'file_path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createClaudeCodeHarness(options),
};
