// Codex through Zed's ACP adapter (`codex-acp`, npm @zed-industries/codex-acp, a native binary).
// Tested against the fake ACP agent only; see the process tests.
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset } from '../preset.js';

export const codexAcpPreset: AcpPreset = {
  id: 'codex-acp',
  displayName: 'Codex (ACP)',
  binary: binarySpec('codex-acp', ['codex-acp']),
  args: () => [],
  multiSession: true,
  quirks: {},
  testedVersions: [],
};

export function createCodexAcpHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(codexAcpPreset, options);
}
