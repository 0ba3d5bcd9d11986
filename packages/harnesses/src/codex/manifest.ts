// Codex (`codex app-server`): what Reins knows without loading the adapter.
import type { ImplementedCapabilities } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { codexBinarySpec } from './discovery.js';
import { CODEX_CONFORMANCE } from './testing/conformance.js';
import { CODEX_PIN } from './testing/pin.js';

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

export const CODEX_MANIFEST: HarnessManifest = {
  id: 'codex',
  displayName: 'Codex',
  binary: codexBinarySpec,
  install: 'npm install -g @openai/codex',
  npmPackage: '@openai/codex',
  implemented: CODEX_IMPLEMENTED,
  testedVersions: ['0.169.0', '0.171.0'],
  testing: {
    pin: CODEX_PIN,
    conformance: CODEX_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    tools: {
      // Older Codex builds offered `shell` with an argv array.
      shell: [
        { name: 'exec_command', args: 'cmd' },
        { name: 'shell', args: 'argv' },
      ],
      write: [{ name: 'apply_patch', args: { kind: 'patch' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createCodexHarness(options),
};
