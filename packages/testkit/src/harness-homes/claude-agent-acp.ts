// claude-agent-acp (0.23.1): an ACP agent over the Claude Agent SDK 0.2.83, which runs its own bundled
// Claude Code 2.1.83 (JS). Same Anthropic environment as Claude Code, config in CLAUDE_CONFIG_DIR (acp.md).
//
// Quirks seen on 0.23.1: the first tool_call has empty rawInput; after a cancel the next prompt is off by one.
import { harnessBinary } from '../hermetic/binaries.js';
import { claudeEnvironment } from './claude-code.js';
import { modelList } from './environment.js';
import { DEFAULT_FAKE_MODEL, type HarnessHomeBuilder } from './types.js';

export const buildClaudeAgentAcpHome: HarnessHomeBuilder = async (options) => {
  const binary = options.binary ?? harnessBinary('claude-agent-acp');
  const models = modelList(options.model ?? DEFAULT_FAKE_MODEL, options.extraModels);
  const [model] = models as [string];
  return {
    id: 'claude-agent-acp',
    env: claudeEnvironment(binary, options.tempHome, options.modelServerUrl, model),
    args: [],
    home: options.tempHome.home,
    models,
    files: [],
  };
};
