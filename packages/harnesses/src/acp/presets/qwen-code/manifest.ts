// Qwen Code's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { qwenCodePreset } from './preset.js';
import { QWEN_CODE_CONFORMANCE } from './testing/conformance.js';
import { QWEN_CODE_PIN } from './testing/pin.js';

export const QWEN_CODE_MANIFEST = presetManifest(qwenCodePreset, {
  install: 'npm install -g @qwen-code/qwen-code (needs Node >= 22)',
  npmPackage: '@qwen-code/qwen-code',
  testing: {
    pin: QWEN_CODE_PIN,
    conformance: QWEN_CODE_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    tools: {
      shell: [{ name: 'run_shell_command', args: 'command' }],
      write: [{ name: 'write_file', args: { kind: 'content', pathKey: 'file_path' } }],
    },
  },
});
