// Copilot CLI (1.0.102, native): offline BYOK mode against an OpenAI-compatible provider, run as an ACP agent
// (docs/harnesses/acp.md).
//
// Quirks seen on 1.0.102: without the BYOK provider variables session/new fails with -32000 "Authentication
// required"; provider errors come back as agent_message_chunk text ("Error: 400 ...") with stopReason end_turn.
import { join } from 'node:path';
import { harnessBinary } from '../hermetic/binaries.js';
import { baseEnvironment, modelList } from './environment.js';
import { DEFAULT_FAKE_MODEL, FAKE_API_KEY, type HarnessHomeBuilder } from './types.js';

export const buildCopilotHome: HarnessHomeBuilder = async (options) => {
  const binary = options.binary ?? harnessBinary('copilot');
  const models = modelList(options.model ?? DEFAULT_FAKE_MODEL, options.extraModels);
  const [model] = models as [string];
  const home = options.tempHome.home;
  return {
    id: 'copilot',
    env: {
      ...baseEnvironment(binary, options.tempHome),
      COPILOT_HOME: join(home, '.copilot'),
      COPILOT_CACHE_HOME: join(home, '.cache', 'copilot'),
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_BASE_URL: `${options.modelServerUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: FAKE_API_KEY,
      COPILOT_MODEL: model,
    },
    args: ['--acp', '--no-auto-update', '--disable-builtin-mcps', '--model', model],
    home,
    models,
    files: [],
  };
};
