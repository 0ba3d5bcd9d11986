// OpenClaw (its gateway's WebSocket protocol): what Reins knows without loading the adapter.
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { OPENCLAW_IMPLEMENTED } from './capabilities.js';
import { OPENCLAW_BINARY, OPENCLAW_INSTALL, OPENCLAW_TESTED_VERSIONS } from './discovery.js';
import { OPENCLAW_CONFORMANCE } from './testing/conformance.js';
import { OPENCLAW_PIN } from './testing/pin.js';

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
    fuzz: async () => (await import('./testing/fuzz.js')).buildFuzzTarget,
    tools: {
      shell: [{ name: 'exec', args: 'command' }],
      write: [{ name: 'write', args: { kind: 'content', pathKey: 'path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createOpenClawHarness(options),
};
