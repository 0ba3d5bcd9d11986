// Qwen Code over ACP (`qwen --acp`), tested with @qwen-code/qwen-code 0.24.4 (it needs Node >= 22
// first on ITS PATH; Reins itself may run on Node 20).

import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';

export const qwenCodePreset: AcpPreset = {
  id: 'qwen-code',
  displayName: 'Qwen Code',
  binary: { id: 'qwen-code', names: ['qwen'], stateFolders: (env) => envOrHome(env, 'QWEN_HOME', '.qwen') },
  args: () => ['--acp'],
  multiSession: true,
  // 0.24.4 sends the extension request craft/drainMidTurnQueue mid-turn; the generic
  // method-not-found answer (-32601) lets it go on, so no quirk switch is needed.
  quirks: {},
  testedVersions: ['0.24.4'],
};
