// Amp (`amp -x --stream-json`): what Reins knows without loading the adapter.
import type { HarnessManifest } from '../manifest.js';
import { testingSource } from '../testing.js';
import { AMP_IMPLEMENTED } from './capabilities.js';
import { AMP_BINARY, AMP_INSTALL, AMP_KNOWN_VERSIONS } from './discovery.js';

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
  testing: {
    fake: testingSource(import.meta.url, './testing/fake.mjs'),
    fuzz: async () => (await import('./testing/fuzz.js')).buildFuzzTarget,
  },
  load: async (options) => (await import('./index.js')).createAmpHarness(options),
};
