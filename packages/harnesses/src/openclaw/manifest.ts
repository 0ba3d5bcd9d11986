// OpenClaw (its gateway's WebSocket protocol): what Reins knows without loading the adapter.
import type { ImplementedCapabilities } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { OPENCLAW_BINARY, OPENCLAW_INSTALL, OPENCLAW_TESTED_VERSIONS } from './discovery.js';
import { OPENCLAW_CONFORMANCE } from './testing/conformance.js';
import { OPENCLAW_PIN } from './testing/pin.js';

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

export const OPENCLAW_MANIFEST: HarnessManifest = {
  id: 'openclaw',
  displayName: 'OpenClaw',
  binary: OPENCLAW_BINARY,
  install: OPENCLAW_INSTALL,
  npmPackage: 'openclaw',
  implemented: OPENCLAW_IMPLEMENTED,
  testedVersions: OPENCLAW_TESTED_VERSIONS,
  testing: {
    pin: OPENCLAW_PIN,
    conformance: OPENCLAW_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    tools: {
      shell: [{ name: 'exec', args: 'command' }],
      write: [{ name: 'write', args: { kind: 'content', pathKey: 'path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createOpenClawHarness(options),
};
