// The ACP agents' pinned CLIs in harness-clis/ and what each prints for --version (or, without a version
// flag, the name its ACP initialize answer gives).
import { join } from 'node:path';
import { type HarnessPinSpec, hasAvx2, linuxCpu, nodeScript } from '../../testing.js';

/** Every ACP agent is driven through the ACP SDK. */
const ACP_SDK = '@agentclientprotocol/sdk';

export const GEMINI_PIN = {
  id: 'gemini',
  packageName: '@google/gemini-cli',
  sdk: ACP_SDK,
  locate: nodeScript('bundle/gemini.js', 'host'),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;

export const QWEN_CODE_PIN = {
  id: 'qwen-code',
  packageName: '@qwen-code/qwen-code',
  sdk: ACP_SDK,
  // cli.js directly: cli-entry.js (the npm bin) only re-spawns it with --expose-gc. Needs Node >= 22.
  locate: nodeScript('cli.js', 'bundled'),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;

export const COPILOT_PIN = {
  id: 'copilot',
  packageName: '@github/copilot',
  sdk: ACP_SDK,
  locate: (place) => ({ command: join(place.dep(`@github/copilot-linux-${linuxCpu}`), 'copilot'), args: [] }),
  versionOutput: (version) => `GitHub Copilot CLI ${version}`,
} satisfies HarnessPinSpec;

export const OPENCODE_PIN = {
  id: 'opencode',
  packageName: 'opencode-ai',
  sdk: ACP_SDK,
  // The same choice opencode-ai's postinstall makes: the baseline build on x64 CPUs without AVX2.
  locate: (place) => ({
    command: join(
      place.dep(`opencode-linux-${linuxCpu}${linuxCpu === 'x64' && !hasAvx2() ? '-baseline' : ''}`),
      'bin/opencode',
    ),
    args: [],
  }),
  versionOutput: (version) => version,
} satisfies HarnessPinSpec;

/** 0.101.0 declares Node >= 22: the bundled Node 24. The previous pin, 0.23.1, runs on the tests' Node. */
export const CLAUDE_AGENT_ACP_PIN = {
  id: 'claude-agent-acp',
  packageName: '@agentclientprotocol/claude-agent-acp',
  sdk: ACP_SDK,
  locate: nodeScript('dist/index.js', 'bundled'),
  previous: { packageName: '@zed-industries/claude-agent-acp', locate: nodeScript('dist/index.js', 'host') },
  // No --version (0.23.1 ignores arguments and waits on stdin); the @agentclientprotocol pins name their package.
  initializeName: { current: '@agentclientprotocol/claude-agent-acp', previous: '@zed-industries/claude-agent-acp' },
} satisfies HarnessPinSpec;

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
