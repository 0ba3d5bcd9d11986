// Gemini CLI (0.61.0): Gemini API key mode against GOOGLE_GEMINI_BASE_URL, run as an ACP agent (docs/harnesses/acp.md).
//
// Quirks seen on 0.61.0:
// - Without GEMINI_CLI_NO_RELAUNCH it re-spawns itself with a bigger heap (a second node process).
// - Model `auto` adds a `:generateContent` routing call; a concrete model does not.
// - It writes error dumps to the temp dir and `~/.gemini/projects.json` even for --version.
import { join } from 'node:path';
import { harnessBinary } from '../hermetic/binaries.js';
import { baseEnvironment, modelList, writeConfig } from './environment.js';
import { FAKE_API_KEY, type HarnessHomeBuilder } from './types.js';

export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

export const buildGeminiHome: HarnessHomeBuilder = async (options) => {
  const binary = options.binary ?? harnessBinary('gemini');
  const models = modelList(options.model ?? DEFAULT_GEMINI_MODEL, options.extraModels);
  const [model] = models as [string];
  const settings = await writeConfig(join(options.tempHome.home, '.gemini', 'settings.json'), {
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
  });
  return {
    id: 'gemini',
    env: {
      ...baseEnvironment(binary, options.tempHome),
      GEMINI_API_KEY: FAKE_API_KEY,
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
