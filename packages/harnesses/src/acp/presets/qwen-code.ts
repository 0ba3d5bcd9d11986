// Qwen Code over ACP (`qwen --acp`), tested with @qwen-code/qwen-code 0.24.4 (it needs Node >= 22
// first on ITS PATH; Reins itself may run on Node 20).

import type { BinarySpec } from '../../runtime/discovery.js';
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { QWEN_CODE_MANIFEST } from '../manifest.js';
import type { AcpPreset } from '../preset.js';

export const qwenCodePreset: AcpPreset = {
  id: 'qwen-code',
  displayName: QWEN_CODE_MANIFEST.displayName,
  binary: QWEN_CODE_MANIFEST.binary as BinarySpec,
  args: () => ['--acp'],
  multiSession: true,
  // 0.24.4 sends the extension request craft/drainMidTurnQueue mid-turn; the generic
  // method-not-found answer (-32601) lets it go on, so no quirk switch is needed.
  quirks: {},
  testedVersions: [...QWEN_CODE_MANIFEST.testedVersions],
};

export function createQwenCodeHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(qwenCodePreset, options);
}
