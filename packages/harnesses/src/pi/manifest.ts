// Pi (`pi --mode rpc`): what Reins knows without loading the adapter.
import type { ImplementedCapabilities } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { PI_BINARY, PI_INSTALL, PI_TESTED_VERSIONS } from './discovery.js';
import { PI_CONFORMANCE } from './testing/conformance.js';
import { PI_PIN } from './testing/pin.js';

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

export const PI_MANIFEST: HarnessManifest = {
  id: 'pi',
  displayName: 'Pi',
  binary: PI_BINARY,
  install: PI_INSTALL,
  npmPackage: '@mariozechner/pi-coding-agent',
  implemented: PI_IMPLEMENTED,
  testedVersions: PI_TESTED_VERSIONS,
  testing: {
    pin: PI_PIN,
    conformance: PI_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    tools: {
      shell: [{ name: 'bash', args: 'command' }],
      write: [{ name: 'write', args: { kind: 'content', pathKey: 'path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createPiHarness(options),
};
