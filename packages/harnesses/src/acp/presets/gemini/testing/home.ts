// Gemini CLI (0.61.0): Gemini API key mode against GOOGLE_GEMINI_BASE_URL, run as an ACP agent (docs/harnesses/acp.md).
//
// Quirks seen on 0.61.0:
// - Without GEMINI_CLI_NO_RELAUNCH it re-spawns itself with a bigger heap (a second node process).
// - Model `auto` adds a `:generateContent` routing call; a concrete model does not.
// - It writes error dumps to the temp dir and `~/.gemini/projects.json` even for --version.
import { join } from 'node:path';
import type { HomeBuilder } from '../../../../testing.js';

export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? DEFAULT_GEMINI_MODEL, options.extraModels);
  const [model] = models as [string];
  const settings = await kit.writeConfig(join(options.tempHome.home, '.gemini', 'settings.json'), {
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
  });
  return {
    env: {
      ...kit.baseEnvironment(binary, options.tempHome),
      GEMINI_API_KEY: kit.fakeApiKey,
      GOOGLE_GEMINI_BASE_URL: options.modelServerUrl,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
    },
    args: ['--acp', '--model', model],
    home: options.tempHome.home,
    models,
    files: [settings],
  };
};
