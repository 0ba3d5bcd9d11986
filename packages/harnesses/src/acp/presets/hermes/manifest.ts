// Hermes's manifest: install hints only (not pinned in harness-clis/: no test side beyond the fake agent).
import { presetManifest } from '../../preset-manifest.js';
import { hermesPreset } from './preset.js';

export const HERMES_MANIFEST = presetManifest(hermesPreset, {
  install: 'see the Hermes documentation (its ACP command is `hermes acp`)',
});
