// codex-acp: 2.6.0 (@agentclientprotocol/codex-acp, a TypeScript adapter running its own Codex 0.166) and the
// previous pin 0.16.0 (@zed-industries/codex-acp, Zed's ACP agent around an embedded, older Codex core).
// The catalog below is 0.16.0's shape; 2.6.0's Codex parses it too (its conformance passes on it).
// It reads CODEX_HOME/config.toml like Codex, so it gets Codex's `fake` provider config (the HomeKit's
// writeCodexConfig, which Codex's home calls too, with this catalog), but it
// needs its OWN model catalog: the catalog cloned from a current Codex (`codex debug models --bundled`)
// does not parse in its core (docs/harnesses/acp.md).
//
// Quirks seen on 0.16.0:
// - The catalog parser rejects effort `max` ("unknown variant `max`, expected one of none, minimal, low,
//   medium, high, xhigh") and requires `supports_reasoning_summaries` and `supports_parallel_tool_calls`,
//   which current Codex catalogs no longer carry. Required fields, found by removing them one at a time:
//   slug, display_name, supported_reasoning_levels, shell_type, visibility, supported_in_api, priority,
//   base_instructions, supports_reasoning_summaries, support_verbosity, truncation_policy,
//   supports_parallel_tool_calls, experimental_supported_tools. A bad catalog fails session/new with
//   "error loading config" on stderr.
// - It refuses `--version` (exit 2, "unexpected argument"); its version is `initialize.agentInfo.version`.
// - It takes only `-c key=value` overrides; there is no --strict-config.
// - A CODEX_HOME under /tmp prints "could not update PATH" on stderr, as Codex does: harmless.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HomeBuilder } from '../../../../testing.js';

/** The efforts codex-acp 0.16.0's core knows (no `max`, no `ultra`). */
const EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const;

/** One catalog entry per fake id, in the shape codex-acp 0.16.0's embedded Codex core parses. */
export function codexAcpModelCatalog(models: readonly string[]) {
  return {
    models: models.map((slug, index) => ({
      slug,
      display_name: slug,
      description: `Scripted model ${slug}`,
      default_reasoning_level: 'medium',
      supported_reasoning_levels: EFFORTS.map((effort) => ({ effort, description: `${effort} effort` })),
      // The classic tool set the scripted server's shell()/writeFile() know: exec_command and a freeform
      // apply_patch, as in the Codex home.
      shell_type: 'unified_exec',
      apply_patch_tool_type: 'freeform',
      visibility: 'list',
      supported_in_api: true,
      priority: index + 1,
      upgrade: null,
      base_instructions: 'You are Codex, a coding agent. Work in the current workspace and answer briefly.',
      supports_reasoning_summaries: true,
      default_reasoning_summary: 'auto',
      support_verbosity: false,
      truncation_policy: { mode: 'tokens', limit: 10_000 },
      supports_parallel_tool_calls: false,
      experimental_supported_tools: [],
      context_window: 272_000,
      input_modalities: ['text', 'image'],
    })),
  };
}

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model] = models as [string];
  const codexHome = join(options.tempHome.home, '.codex');
  await mkdir(codexHome, { recursive: true });
  const catalogPath = await kit.writeConfig(join(codexHome, 'models.json'), codexAcpModelCatalog(models));
  const config = await kit.writeCodexConfig(codexHome, { model, catalogPath, modelServerUrl: options.modelServerUrl });
  return {
    env: { ...kit.baseEnvironment(binary, options.tempHome), CODEX_HOME: codexHome, ...config.env },
    args: [],
    home: options.tempHome.home,
    models,
    files: [config.path, catalogPath],
  };
};
