// claude-agent-acp (0.23.1): an ACP agent over the Claude Agent SDK 0.2.83, which runs its own bundled
// Claude Code 2.1.83 (JS). Same Anthropic environment as Claude Code, config in CLAUDE_CONFIG_DIR (docs/harnesses/acp.md).
//
// Quirks seen on 0.23.1: the first tool_call has empty rawInput; after a cancel the next prompt is off by one.
// Its model list is the bundled Claude Code's picker (the aliases plus ANTHROPIC_MODEL), and only a model in
// that list can be selected: unlike Claude Code itself, which takes any id, so an extra model has to be put
// on the list. 2.1.83 adds exactly one custom entry, from ANTHROPIC_CUSTOM_MODEL_OPTION.
import type { HomeBuilder } from '../../../../testing.js';

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model, ...extra] = models as [string, ...string[]];
  if (extra.length > 1) {
    throw new Error(
      `claude-agent-acp ${binary.version} can list one extra model (ANTHROPIC_CUSTOM_MODEL_OPTION), not ` +
        `${extra.length}: ${extra.join(', ')}. Pass at most one in extraModels.`,
    );
  }
  return {
    env: {
      // Claude Code's own hermetic environment (its folder's testing/home.ts) on this binary and model.
      ...(await kit.homeOf('claude-code', { ...options, binary, model, extraModels: [] })).env,
      ...(extra[0] ? { ANTHROPIC_CUSTOM_MODEL_OPTION: extra[0] } : {}),
    },
    args: [],
    home: options.tempHome.home,
    models,
    files: [],
  };
};
