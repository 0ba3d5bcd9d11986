// The ACP agents Reins knows (one manifest each, and `acp` for any other ACP command): what Reins
// knows about them without loading the ACP adapter or the ACP SDK. The presets take their id, display
// name, binary and tested versions from here.

import type { ImplementedCapabilities } from '@reins/core';
import { ReinsError } from '@reins/core';
import type { HarnessManifest } from '../manifest.js';
import { envOrHome } from '../runtime/confinement.js';
import type { BinarySpec, VersionProber } from '../runtime/discovery.js';
import type { HarnessOptions } from '../runtime/options.js';
import { testingSource } from '../testing.js';
import {
  CLAUDE_AGENT_ACP_CONFORMANCE,
  CODEX_ACP_CONFORMANCE,
  COPILOT_CONFORMANCE,
  GEMINI_CONFORMANCE,
  OPENCODE_CONFORMANCE,
  QWEN_CODE_CONFORMANCE,
} from './testing/conformance.js';
import {
  CLAUDE_AGENT_ACP_PIN,
  CODEX_ACP_PIN,
  COPILOT_PIN,
  GEMINI_PIN,
  OPENCODE_PIN,
  QWEN_CODE_PIN,
} from './testing/pins.js';

/** What the ACP mapping in this folder implements (the `implemented` layer). */
export const ACP_IMPLEMENTED: ImplementedCapabilities = {
  resume: 'load_or_resume',
  fork: 'session_fork', // session/fork where the agent advertises sessionCapabilities.fork
  interrupt: true,
  steer: false,
  queue: true,
  liveModelSwitch: true,
  liveEffortSwitch: 'config_option',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: true,
  structuredOutput: 'emulated',
  usage: true,
  cost: true,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: 'session_load',
  compaction: true,
  sandbox: 'reins-bubblewrap', // posture workspace: Reins runs the agent under bubblewrap (runtime/confinement.ts)
};

type AcpFactory =
  | 'createGeminiHarness'
  | 'createQwenCodeHarness'
  | 'createCopilotHarness'
  | 'createOpencodeHarness'
  | 'createClaudeAgentAcpHarness'
  | 'createCodexAcpHarness'
  | 'createHermesHarness';

const loader = (factory: AcpFactory) => async (options: HarnessOptions & Record<string, unknown>) =>
  (await import('./index.js'))[factory](options);

/** codex-acp 0.16.0 refuses `--version`: its version comes from ACP `initialize` (loaded only when probed). */
const initializeVersionProbe: VersionProber = async (...args) =>
  (await import('./discovery.js')).initializeVersionProbe(...args);

function spec(id: HarnessManifest['id'], names: string[], extra: Partial<BinarySpec> = {}): BinarySpec {
  return { id, names, ...extra };
}

export const GEMINI_MANIFEST: HarnessManifest = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  binary: spec('gemini', ['gemini'], { stateFolders: (env) => envOrHome(env, 'GEMINI_CLI_HOME', '', '.gemini') }),
  install: 'npm install -g @google/gemini-cli',
  npmPackage: '@google/gemini-cli',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['0.61.0'],
  testing: {
    pin: GEMINI_PIN,
    conformance: GEMINI_CONFORMANCE,
    home: async () => (await import('./testing/homes/gemini.js')).buildHome,
  },
  load: loader('createGeminiHarness'),
};

export const QWEN_CODE_MANIFEST: HarnessManifest = {
  id: 'qwen-code',
  displayName: 'Qwen Code',
  binary: spec('qwen-code', ['qwen'], { stateFolders: (env) => envOrHome(env, 'QWEN_HOME', '.qwen') }),
  install: 'npm install -g @qwen-code/qwen-code (needs Node >= 22)',
  npmPackage: '@qwen-code/qwen-code',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['0.24.4'],
  testing: {
    pin: QWEN_CODE_PIN,
    conformance: QWEN_CODE_CONFORMANCE,
    home: async () => (await import('./testing/homes/qwen-code.js')).buildHome,
  },
  load: loader('createQwenCodeHarness'),
};

export const COPILOT_MANIFEST: HarnessManifest = {
  id: 'copilot',
  displayName: 'GitHub Copilot CLI',
  binary: spec('copilot', ['copilot'], {
    stateFolders: (env) => [
      ...envOrHome(env, 'COPILOT_HOME', '.copilot'),
      ...envOrHome(env, 'COPILOT_CACHE_HOME', '.cache/copilot'),
    ],
  }),
  install: 'npm install -g @github/copilot',
  npmPackage: '@github/copilot',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['1.0.102'],
  testing: {
    pin: COPILOT_PIN,
    conformance: COPILOT_CONFORMANCE,
    home: async () => (await import('./testing/homes/copilot.js')).buildHome,
  },
  load: loader('createCopilotHarness'),
};

export const OPENCODE_MANIFEST: HarnessManifest = {
  id: 'opencode',
  displayName: 'OpenCode',
  binary: spec('opencode', ['opencode'], {
    stateFolders: (env) => [
      ...envOrHome(env, 'XDG_CONFIG_HOME', '.config', 'opencode'),
      ...envOrHome(env, 'XDG_DATA_HOME', '.local/share', 'opencode'),
      ...envOrHome(env, 'XDG_STATE_HOME', '.local/state', 'opencode'),
      ...envOrHome(env, 'XDG_CACHE_HOME', '.cache', 'opencode'),
    ],
  }),
  install: 'npm install -g opencode-ai',
  npmPackage: 'opencode-ai',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['1.18.33'],
  testing: {
    pin: OPENCODE_PIN,
    conformance: OPENCODE_CONFORMANCE,
    home: async () => (await import('./testing/homes/opencode.js')).buildHome,
  },
  load: loader('createOpencodeHarness'),
};

export const CLAUDE_AGENT_ACP_MANIFEST: HarnessManifest = {
  id: 'claude-agent-acp',
  displayName: 'Claude Code (ACP)',
  binary: spec('claude-agent-acp', ['claude-agent-acp'], {
    stateFolders: (env) => envOrHome(env, 'CLAUDE_CONFIG_DIR', '.claude'),
  }),
  // Moved from @zed-industries (stopped at 0.23.1) to @agentclientprotocol (docs/architecture/acp.md).
  install: 'npm install -g @agentclientprotocol/claude-agent-acp',
  npmPackage: '@agentclientprotocol/claude-agent-acp',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['0.101.0', '0.23.1'],
  testing: {
    pin: CLAUDE_AGENT_ACP_PIN,
    conformance: CLAUDE_AGENT_ACP_CONFORMANCE,
    home: async () => (await import('./testing/homes/claude-agent-acp.js')).buildHome,
  },
  load: loader('createClaudeAgentAcpHarness'),
};

export const CODEX_ACP_MANIFEST: HarnessManifest = {
  id: 'codex-acp',
  displayName: 'Codex (ACP)',
  binary: spec('codex-acp', ['codex-acp'], {
    versionProbe: initializeVersionProbe,
    // Its own Codex sandbox (workspace-write) runs each command under a nested bwrap that makes /tmp/.git
    // (2.6.0: "bwrap: Can't mkdir /tmp/.git: Read-only file system" when /tmp is not writable).
    stateFolders: (env) => [...envOrHome(env, 'CODEX_HOME', '.codex'), '/tmp'],
  }),
  // 2.x (@agentclientprotocol) is a TypeScript adapter on `codex app-server`; Zed's Rust one stopped at 0.16.0.
  install: 'npm install -g @agentclientprotocol/codex-acp',
  npmPackage: '@agentclientprotocol/codex-acp',
  implemented: ACP_IMPLEMENTED,
  testedVersions: ['2.6.0', '0.16.0'],
  testing: {
    pin: CODEX_ACP_PIN,
    conformance: CODEX_ACP_CONFORMANCE,
    home: async () => (await import('./testing/homes/codex-acp.js')).buildHome,
  },
  load: loader('createCodexAcpHarness'),
};

export const HERMES_MANIFEST: HarnessManifest = {
  id: 'hermes',
  displayName: 'Hermes',
  binary: spec('hermes', ['hermes'], { stateFolders: (env) => envOrHome(env, 'HERMES_HOME', '.hermes') }),
  install: 'see the Hermes documentation (its ACP command is `hermes acp`)',
  implemented: ACP_IMPLEMENTED,
  testedVersions: [],
  load: loader('createHermesHarness'),
};

/** Any other ACP agent: the command comes from the options or REINS_ACP_COMMAND ("my-agent --acp"). */
export const GENERIC_ACP_MANIFEST: HarnessManifest = {
  id: 'acp',
  displayName: 'ACP agent',
  install: 'install your ACP agent, then set REINS_ACP_COMMAND="<agent command>"',
  implemented: ACP_IMPLEMENTED,
  testedVersions: [],
  // The fake ACP agent stands for every ACP agent in the process tier.
  testing: { fake: testingSource(import.meta.url, './testing/fake.mjs') },
  load: async (options) => {
    const words = (typeof options.command === 'string' ? options.command : (process.env.REINS_ACP_COMMAND ?? ''))
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const [command, ...args] = words;
    if (!command) {
      throw new ReinsError(
        'invalid_input',
        'The generic acp harness needs the agent command: set REINS_ACP_COMMAND (e.g. "my-agent --acp").',
        { harness: 'acp' },
      );
    }
    const extra = Array.isArray(options.args) ? (options.args as string[]) : [];
    return (await import('./index.js')).createAcpHarness({ ...options, command, args: [...args, ...extra] });
  },
};

export const ACP_MANIFESTS: readonly HarnessManifest[] = [
  GEMINI_MANIFEST,
  QWEN_CODE_MANIFEST,
  COPILOT_MANIFEST,
  OPENCODE_MANIFEST,
  CLAUDE_AGENT_ACP_MANIFEST,
  CODEX_ACP_MANIFEST,
  HERMES_MANIFEST,
  GENERIC_ACP_MANIFEST,
];
