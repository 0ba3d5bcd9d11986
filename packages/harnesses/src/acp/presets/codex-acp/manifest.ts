// codex-acp's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { codexAcpPreset } from './preset.js';
import { CODEX_ACP_CONFORMANCE } from './testing/conformance.js';
import { CODEX_ACP_PIN } from './testing/pin.js';

export const CODEX_ACP_MANIFEST = presetManifest(codexAcpPreset, {
  // 2.x (@agentclientprotocol) is a TypeScript adapter on `codex app-server`; Zed's Rust one stopped at 0.16.0.
  install: 'npm install -g @agentclientprotocol/codex-acp',
  npmPackage: '@agentclientprotocol/codex-acp',
  testing: {
    pin: CODEX_ACP_PIN,
    conformance: CODEX_ACP_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
  },
});
