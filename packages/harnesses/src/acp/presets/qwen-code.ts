// Qwen Code over ACP (`qwen --acp`), tested with @qwen-code/qwen-code 0.24.4 (it needs Node >= 22
// first on ITS PATH; Reins itself may run on Node 20).
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset } from '../preset.js';

export const qwenCodePreset: AcpPreset = {
  id: 'qwen-code',
  displayName: 'Qwen Code',
  binary: binarySpec('qwen-code', ['qwen']),
  args: () => ['--acp'],
  multiSession: true,
  // 0.24.4 sends the extension request craft/drainMidTurnQueue mid-turn; the generic
  // method-not-found answer (-32601) lets it go on, so no quirk switch is needed.
  quirks: {},
  testedVersions: ['0.24.4'],
};

export function createQwenCodeHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(qwenCodePreset, options);
}
