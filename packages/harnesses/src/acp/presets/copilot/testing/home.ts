// Copilot CLI (1.0.102, native): offline BYOK mode against an OpenAI-compatible provider, run as an ACP agent
// (docs/harnesses/acp.md).
//
// Quirks seen on 1.0.102: without the BYOK provider variables session/new fails with -32000 "Authentication
// required"; provider errors come back as agent_message_chunk text ("Error: 400 ...") with stopReason end_turn.
import { join } from 'node:path';
import type { HomeBuilder } from '../../../../testing.js';

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model] = models as [string];
  const home = options.tempHome.home;
  return {
    env: {
      ...kit.baseEnvironment(binary, options.tempHome),
      COPILOT_HOME: join(home, '.copilot'),
      COPILOT_CACHE_HOME: join(home, '.cache', 'copilot'),
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_BASE_URL: `${options.modelServerUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: kit.fakeApiKey,
      COPILOT_MODEL: model,
    },
    args: ['--acp', '--no-auto-update', '--disable-builtin-mcps', '--model', model],
    home,
    models,
    files: [],
  };
};
