// Qwen Code (0.24.4, Node >= 22): OpenAI chat completions via settings.json `modelProviders`, run as an ACP
// agent with the Node 24 from harness-clis first on PATH (docs/harnesses/acp.md).
//
// Quirks seen on 0.24.4: side calls to the same model (memory, suggestions, auto-approve classifier); it sends
// the request `craft/drainMidTurnQueue` (answer -32601) and `qwen/notify/...` notifications.
import { join } from 'node:path';
import { harnessBinary } from '../hermetic/binaries.js';
import { baseEnvironment, modelList, writeConfig } from './environment.js';
import { DEFAULT_FAKE_MODEL, FAKE_API_KEY, type HarnessHomeBuilder } from './types.js';

/** A second model is always configured, so that a model switch has somewhere to go. */
export const QWEN_SECOND_MODEL = 'fake-model-2';

export const buildQwenCodeHome: HarnessHomeBuilder = async (options) => {
  const binary = options.binary ?? harnessBinary('qwen-code');
  const models = modelList(options.model ?? DEFAULT_FAKE_MODEL, options.extraModels ?? [QWEN_SECOND_MODEL]);
  const [model] = models as [string];
  const baseUrl = `${options.modelServerUrl}/v1`;
  const settings = await writeConfig(join(options.tempHome.home, '.qwen', 'settings.json'), {
    security: { auth: { selectedType: 'openai' } },
    model: { name: model },
    modelProviders: { openai: models.map((id) => ({ id, name: id, baseUrl, envKey: 'OPENAI_API_KEY' })) },
    general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  });
  return {
    id: 'qwen-code',
    env: {
      ...baseEnvironment(binary, options.tempHome),
      OPENAI_API_KEY: FAKE_API_KEY,
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
