// Pi (`pi --mode rpc`): what Reins knows without loading the adapter.
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { PI_IMPLEMENTED } from './capabilities.js';
import { PI_BINARY, PI_INSTALL, PI_TESTED_VERSIONS } from './discovery.js';
import { PI_CONFORMANCE } from './testing/conformance.js';
import { PI_PIN } from './testing/pin.js';

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
    fuzz: async () => (await import('./testing/fuzz.js')).buildFuzzTarget,
    tools: {
      shell: [{ name: 'bash', args: 'command' }],
      write: [{ name: 'write', args: { kind: 'content', pathKey: 'path' } }],
    },
  },
  load: async (options) => (await import('./index.js')).createPiHarness(options),
};
