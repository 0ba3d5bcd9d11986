// codex-acp's pinned CLI in harness-clis/ (and its previous pin, Zed's Rust agent), and the name its ACP
// initialize answer gives (0.16.0 refuses --version).
import { join } from 'node:path';
import { type HarnessPinSpec, linuxCpu, nodeScript } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

/**
 * 2.x is a TypeScript adapter on `codex app-server` (its own Codex as a dependency); the previous pin,
 * Zed's Rust 0.16.0, whose bin/codex-acp.js only execs the platform package's native binary.
 */
export const CODEX_ACP_PIN = {
  id: 'codex-acp',
  packageName: '@agentclientprotocol/codex-acp',
  sdk: ACP_SDK,
  locate: nodeScript('dist/index.js', 'bundled'),
  previous: {
    packageName: '@zed-industries/codex-acp',
    locate: (place) => ({
      command: join(place.dep(`@zed-industries/codex-acp-linux-${linuxCpu}`), 'bin/codex-acp'),
      args: [],
    }),
  },
  // 0.16.0 refuses --version.
  initializeName: { current: '@agentclientprotocol/codex-acp', previous: 'codex-acp' },
} satisfies HarnessPinSpec;
