// Gemini CLI's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { geminiPreset } from './preset.js';
import { GEMINI_CONFORMANCE } from './testing/conformance.js';
import { GEMINI_PIN } from './testing/pin.js';

export const GEMINI_MANIFEST = presetManifest(geminiPreset, {
  install: 'npm install -g @google/gemini-cli',
  npmPackage: '@google/gemini-cli',
  testing: {
    pin: GEMINI_PIN,
    conformance: GEMINI_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    tools: {
      shell: [{ name: 'run_shell_command', args: 'command' }],
      write: [{ name: 'write_file', args: { kind: 'content', pathKey: 'file_path' } }],
    },
  },
});
