// OpenCode's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { opencodePreset } from './preset.js';
import { OPENCODE_CONFORMANCE } from './testing/conformance.js';
import { OPENCODE_PIN } from './testing/pin.js';

export const OPENCODE_MANIFEST = presetManifest(opencodePreset, {
  install: 'npm install -g opencode-ai',
  npmPackage: 'opencode-ai',
  testing: {
    pin: OPENCODE_PIN,
    conformance: OPENCODE_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    tools: {
      shell: [{ name: 'bash', args: 'command' }],
      write: [{ name: 'write', args: { kind: 'content', pathKey: 'path' } }],
    },
  },
});
