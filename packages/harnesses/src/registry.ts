// Every harness Reins knows, by public id, loaded on demand so `reins run -H codex` does not
// load the Claude SDK. An id with no adapter yet is known but not available.
import { HARNESS_IDS, type Harness, type HarnessId, isHarnessId, ReinsError } from '@reins/core';
import type { HarnessOptions } from './runtime/options.js';

/** Options for any harness; harness-specific fields (the generic ACP command, ...) ride along. */
export type AnyHarnessOptions = HarnessOptions & Record<string, unknown>;
type Loader = (options: AnyHarnessOptions) => Promise<Harness>;

const acp = () => import('./acp/index.js');

const LOADERS: Partial<Record<HarnessId, Loader>> = {
  'claude-code': async (options) => (await import('./claude-code/index.js')).createClaudeCodeHarness(options),
  codex: async (options) => (await import('./codex/index.js')).createCodexHarness(options),
  gemini: async (options) => (await acp()).createGeminiHarness(options),
  'qwen-code': async (options) => (await acp()).createQwenCodeHarness(options),
  copilot: async (options) => (await acp()).createCopilotHarness(options),
  opencode: async (options) => (await acp()).createOpencodeHarness(options),
  'claude-agent-acp': async (options) => (await acp()).createClaudeAgentAcpHarness(options),
  'codex-acp': async (options) => (await acp()).createCodexAcpHarness(options),
  hermes: async (options) => (await acp()).createHermesHarness(options),
  pi: async (options) => (await import('./pi/index.js')).createPiHarness(options),
  openclaw: async (options) => (await import('./openclaw/index.js')).createOpenClawHarness(options),
  amp: async (options) => (await import('./amp/index.js')).createAmpHarness(options),
  acp: async (options) => {
    // Any ACP agent: the command comes from the options or REINS_ACP_COMMAND ("hermes acp").
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
    return (await acp()).createAcpHarness({ ...options, command, args: [...args, ...extra] });
  },
};

/** Adds (or replaces) the loader for an id; adapters register here as they land. */
export function registerHarness(id: HarnessId, loader: Loader): void {
  LOADERS[id] = loader;
}

/** Ids with an adapter in this build, in the order of core HARNESS_IDS. */
export function availableHarnessIds(): HarnessId[] {
  return HARNESS_IDS.filter((id) => LOADERS[id] !== undefined);
}

export async function createHarness(id: string, options: AnyHarnessOptions = {}): Promise<Harness> {
  if (!isHarnessId(id)) {
    throw new ReinsError('invalid_input', `Unknown harness "${id}". Known harnesses: ${HARNESS_IDS.join(', ')}.`, {
      operation: 'createHarness',
      data: { known: [...HARNESS_IDS] },
    });
  }
  const loader = LOADERS[id];
  if (!loader) {
    throw new ReinsError(
      'unsupported_capability',
      `The ${id} harness has no adapter in this build of Reins yet. Available: ${availableHarnessIds().join(', ') || 'none'}.`,
      { harness: id, operation: 'createHarness' },
    );
  }
  return loader(options);
}
