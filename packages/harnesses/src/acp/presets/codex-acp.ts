// Codex through Zed's ACP adapter (`codex-acp`, npm @zed-industries/codex-acp, a native binary that embeds
// an older Codex core and reads CODEX_HOME like Codex). Tested with 0.16.0 (pinned in harness-clis):
// codex-acp.real.test.ts and the conformance suite.
//
// Quirks seen on 0.16.0: it refuses `--version` (exit 2), so its version comes from `initialize`'s
// `agentInfo.version`; its model catalog must suit the older core (no effort `max`; see the testkit's
// codex-acp home).

import type { BinarySpec } from '../../runtime/discovery.js';
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { CODEX_ACP_MANIFEST } from '../manifest.js';
import type { AcpPreset } from '../preset.js';

export const codexAcpPreset: AcpPreset = {
  id: 'codex-acp',
  displayName: CODEX_ACP_MANIFEST.displayName,
  binary: CODEX_ACP_MANIFEST.binary as BinarySpec,
  args: () => [],
  multiSession: true,
  quirks: {},
  testedVersions: [...CODEX_ACP_MANIFEST.testedVersions],
};

export function createCodexAcpHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(codexAcpPreset, options);
}
