// Codex's hermetic home (0.169.0, 0.171.0): CODEX_HOME/config.toml with a custom `fake` provider on the
// Responses API, and a model catalog for the fake ids (docs/harnesses/codex.md).
//
// Quirks seen on 0.169.0:
// - Without a model_catalog_json entry for the model: "model metadata not found" and no apply_patch tool.
//   The catalog is cloned from `codex debug models --bundled` of the same binary, ids renamed.
// - features.plugins must be false, or it runs `git ls-remote https://github.com/...` at start.
// - --strict-config, or an invalid config silently falls back to the real OpenAI provider.
// - A CODEX_HOME under /tmp prints "WARNING: proceeding, even though we could not create PATH aliases"
//   on stderr: harmless.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HomeBuilder, HomeKit, HomeRequest } from '../../testing.js';

type CatalogEntry = Record<string, unknown> & { slug: string };

const bundledCatalogs = new Map<string, Promise<CatalogEntry[]>>();

/** `codex debug models --bundled`, once per binary per process (it is offline, ~150 ms). */
function bundledCatalog(binary: HomeRequest['binary'], tmp: string, kit: HomeKit): Promise<CatalogEntry[]> {
  let catalog = bundledCatalogs.get(binary.command);
  if (!catalog) {
    catalog = (async () => {
      const scratch = await mkdtemp(join(tmp, 'codex-catalog-'));
      try {
        const env = { PATH: '/usr/bin:/bin', HOME: scratch, CODEX_HOME: scratch, TMPDIR: scratch, LANG: 'C.UTF-8' };
        const { stdout } = await kit.runHermetic(binary.command, [...binary.args, 'debug', 'models', '--bundled'], env);
        return (JSON.parse(stdout) as { models: CatalogEntry[] }).models;
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    })();
    bundledCatalogs.set(binary.command, catalog);
    catalog.catch(() => bundledCatalogs.delete(binary.command));
  }
  return catalog;
}

/** One catalog entry per fake id, each a copy of a real listed model with the id swapped in. */
async function modelCatalog(request: HomeRequest, models: readonly string[], kit: HomeKit) {
  const bundled = await bundledCatalog(request.binary, request.tempHome.tmp, kit);
  const template = bundled.find((entry) => entry.visibility === 'list') ?? bundled[0];
  if (!template) throw new Error('codex debug models --bundled returned no models');
  return {
    models: models.map((slug, index) => ({
      ...template,
      slug,
      display_name: slug,
      description: `Scripted model ${slug}`,
      visibility: 'list',
      priority: index + 1,
      upgrade: null,
      availability_nux: null,
      // The classic tool set (exec_command, apply_patch), which the scripted server's shell()/writeFile()
      // know; the bundled template's newer tool modes offer other tools (seen on 0.169.0).
      tool_mode: null,
      use_responses_lite: false,
      multi_agent_version: null,
      experimental_supported_tools: [],
    })),
  };
}

export const buildHome: HomeBuilder = async (request, kit) => {
  const models = kit.modelList(request.model ?? kit.defaultModel, request.extraModels);
  const [model] = models as [string];
  const codexHome = join(request.tempHome.home, '.codex');
  await mkdir(codexHome, { recursive: true });
  const catalogPath = await kit.writeConfig(join(codexHome, 'models.json'), await modelCatalog(request, models, kit));
  const config = await kit.writeCodexConfig(codexHome, { model, catalogPath, modelServerUrl: request.modelServerUrl });
  return {
    env: {
      ...kit.baseEnvironment(request.binary, request.tempHome),
      CODEX_HOME: codexHome,
      ...config.env,
    },
    args: ['app-server', '--strict-config'],
    home: request.tempHome.home,
    models,
    files: [config.path, catalogPath],
  };
};
