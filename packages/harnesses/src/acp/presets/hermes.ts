// Hermes agent over ACP (`hermes acp`). Hermes is a Python program and not on npm, so it is
// tested through the fake ACP agent only.
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset } from '../preset.js';

export const hermesPreset: AcpPreset = {
  id: 'hermes',
  displayName: 'Hermes',
  binary: binarySpec('hermes', ['hermes']),
  args: () => ['acp'],
  multiSession: true,
  quirks: {},
  testedVersions: [],
};

export function createHermesHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(hermesPreset, options);
}
