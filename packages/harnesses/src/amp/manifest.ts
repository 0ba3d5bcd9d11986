// Amp (`amp -x --stream-json`): what Reins knows without loading the adapter.
import type { ImplementedCapabilities } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { AMP_BINARY, AMP_INSTALL, AMP_KNOWN_VERSIONS } from './discovery.js';

/** Implemented mappings; nothing here was observed against a live Amp (see header). */
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

export const AMP_MANIFEST: HarnessManifest = {
  id: 'amp',
  displayName: 'Amp',
  binary: AMP_BINARY,
  install: AMP_INSTALL,
  npmPackage: '@ampcode/cli',
  implemented: AMP_IMPLEMENTED,
  // No live Amp session was observed (it needs its service): the version whose format the fixtures follow.
  testedVersions: AMP_KNOWN_VERSIONS,
  // Not pinned in harness-clis/ (it needs its service): only a fake.
  testing: { fake: testingSource(import.meta.url, './testing/fake.mjs') },
  load: async (options) => (await import('./index.js')).createAmpHarness(options),
};
