// OpenCode over ACP (`opencode acp`), tested with opencode-ai 1.18.33.

import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';

/**
 * OpenCode 1.18.33 always lists its own cloud models (provider `opencode/`, OpenCode Zen) next to
 * the configured ones. With OPENCODE_DISABLE_MODELS_FETCH set (offline use, as in Reins' tests)
 * those cannot answer, so Reins hides them from the model list and refuses to switch to them.
 */
export function opencodeHidesModel(modelId: string, env: Record<string, string | undefined>): boolean {
  const offline = env.OPENCODE_DISABLE_MODELS_FETCH;
  return Boolean(offline && offline !== '0' && offline !== 'false') && modelId.startsWith('opencode/');
}

export const opencodePreset: AcpPreset = {
  id: 'opencode',
  displayName: 'OpenCode',
  binary: {
    id: 'opencode',
    names: ['opencode'],
    stateFolders: (env) => [
      ...envOrHome(env, 'XDG_CONFIG_HOME', '.config', 'opencode'),
      ...envOrHome(env, 'XDG_DATA_HOME', '.local/share', 'opencode'),
      ...envOrHome(env, 'XDG_STATE_HOME', '.local/state', 'opencode'),
      ...envOrHome(env, 'XDG_CACHE_HOME', '.cache', 'opencode'),
    ],
  },
  args: () => ['acp'],
  multiSession: true,
  quirks: { hideModel: opencodeHidesModel },
  testedVersions: ['1.18.33'],
};
