// OpenCode over ACP (`opencode acp`), tested with opencode-ai 1.18.33.

import type { BinarySpec } from '../../runtime/discovery.js';
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { OPENCODE_MANIFEST } from '../manifest.js';
import type { AcpPreset } from '../preset.js';

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
  displayName: OPENCODE_MANIFEST.displayName,
  binary: OPENCODE_MANIFEST.binary as BinarySpec,
  args: () => ['acp'],
  multiSession: true,
  quirks: { hideModel: opencodeHidesModel },
  testedVersions: [...OPENCODE_MANIFEST.testedVersions],
};

export function createOpencodeHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(opencodePreset, options);
}
