// Qwen Code's pinned CLI in harness-clis/ and what it prints for --version.
import { type HarnessPinSpec, nodeScript } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

export const QWEN_CODE_PIN = {
  id: 'qwen-code',
  packageName: '@qwen-code/qwen-code',
  sdk: ACP_SDK,
  // cli.js directly: cli-entry.js (the npm bin) only re-spawns it with --expose-gc. Needs Node >= 22.
  locate: nodeScript('cli.js', 'bundled'),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;
