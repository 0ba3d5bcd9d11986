// Qwen Code (0.24.4, Node >= 22): OpenAI chat completions via settings.json `modelProviders`, run as an ACP
// agent with the Node 24 from harness-clis first on PATH (docs/harnesses/acp.md).
//
// Quirks seen on 0.24.4: side calls to the same model (memory, suggestions, auto-approve classifier); it sends
// the request `craft/drainMidTurnQueue` (answer -32601) and `qwen/notify/...` notifications.
import { join } from 'node:path';
import type { HomeBuilder } from '../../../../testing.js';

/** A second model is always configured, so that a model switch has somewhere to go. */
export const QWEN_SECOND_MODEL = 'fake-model-2';

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels ?? [QWEN_SECOND_MODEL]);
  const [model] = models as [string];
  const baseUrl = `${options.modelServerUrl}/v1`;
  const settings = await kit.writeConfig(join(options.tempHome.home, '.qwen', 'settings.json'), {
    security: { auth: { selectedType: 'openai' } },
    model: { name: model },
    modelProviders: { openai: models.map((id) => ({ id, name: id, baseUrl, envKey: 'OPENAI_API_KEY' })) },
    general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  });
  return {
    env: {
      ...kit.baseEnvironment(binary, options.tempHome),
      OPENAI_API_KEY: kit.fakeApiKey,
      OPENAI_BASE_URL: baseUrl,
      OPENAI_MODEL: model,
      QWEN_CODE_NO_RELAUNCH: 'true',
      QWEN_TELEMETRY_ENABLED: 'false',
    },
    args: ['--acp', '--auth-type', 'openai', '--model', model],
    home: options.tempHome.home,
    models,
    files: [settings],
  };
};
