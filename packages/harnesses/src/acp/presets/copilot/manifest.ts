// GitHub Copilot CLI's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { copilotPreset } from './preset.js';
import { COPILOT_CONFORMANCE } from './testing/conformance.js';
import { COPILOT_PIN } from './testing/pin.js';

export const COPILOT_MANIFEST = presetManifest(copilotPreset, {
  install: 'npm install -g @github/copilot',
  npmPackage: '@github/copilot',
  testing: {
    pin: COPILOT_PIN,
    conformance: COPILOT_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    // Its shell tool's name is not in the recorded frames (`bash` assumed), nor its write tool.
    tools: {
      shell: [{ name: 'bash', args: 'command' }],
      write: [{ name: 'create', args: { kind: 'file_text' } }],
    },
  },
});
