// Hermes agent over ACP (`hermes acp`). Hermes is a Python program and not on npm, so it is
// tested through the fake ACP agent only.

import type { BinarySpec } from '../../runtime/discovery.js';
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { HERMES_MANIFEST } from '../manifest.js';
import type { AcpPreset } from '../preset.js';

export const hermesPreset: AcpPreset = {
  id: 'hermes',
  displayName: HERMES_MANIFEST.displayName,
  binary: HERMES_MANIFEST.binary as BinarySpec,
  args: () => ['acp'],
  multiSession: true,
  quirks: {},
  testedVersions: [...HERMES_MANIFEST.testedVersions],
};

export function createHermesHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(hermesPreset, options);
}
