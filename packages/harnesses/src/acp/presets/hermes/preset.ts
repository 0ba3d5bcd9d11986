// Hermes agent over ACP (`hermes acp`). Hermes is a Python program and not on npm, so it is
// tested through the fake ACP agent only.

import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';

export const hermesPreset: AcpPreset = {
  id: 'hermes',
  displayName: 'Hermes',
  binary: { id: 'hermes', names: ['hermes'], stateFolders: (env) => envOrHome(env, 'HERMES_HOME', '.hermes') },
  args: () => ['acp'],
  multiSession: true,
  quirks: {},
  testedVersions: [],
};
