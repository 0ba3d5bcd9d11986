// Pi's hermetic home (0.73.1): a `fake` provider in PI_CODING_AGENT_DIR/models.json (chat completions), sessions in a
// folder of the temp home, driven over its own JSONL RPC (docs/harnesses/pi.md).
//
// Quirks seen on 0.73.1: auto-retry (2, 4, 8 s) emits agent_start/agent_end per attempt; `--mode json -p`
// hangs unless stdin is closed.
import { join } from 'node:path';
import type { HomeBuilder } from '../../testing.js';

export const buildHome: HomeBuilder = async (options, kit) => {
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model] = models as [string];
  const home = options.tempHome.home;
  const agentDir = join(home, '.pi', 'agent');
  const sessionDir = join(home, '.pi', 'sessions');
  const modelsJson = await kit.writeConfig(join(agentDir, 'models.json'), {
    providers: {
      fake: {
        baseUrl: `${options.modelServerUrl}/v1`,
        api: 'openai-completions',
        apiKey: kit.fakeApiKey,
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: models.map((id) => ({
          id,
          name: id,
          reasoning: false,
          input: ['text'],
          contextWindow: 128_000,
          maxTokens: 8_192,
          // Pi reports a turn's cost from this table (0.73.1); priced, the cost can be asserted.
          cost: {
            input: options.modelPrice?.input ?? 0,
            output: options.modelPrice?.output ?? 0,
            cacheRead: options.modelPrice?.cacheRead ?? 0,
            cacheWrite: options.modelPrice?.cacheWrite ?? 0,
          },
        })),
      },
    },
  });
  // 0.73.1 retries 3 times at 2, 4, 8 s, and under it the OpenAI SDK retries each 5xx twice more on its
  // own (retry.provider.maxRetries), using up scripted replies: short retries, no hidden ones.
  const settingsJson = await kit.writeConfig(join(agentDir, 'settings.json'), {
    retry: { enabled: true, maxRetries: 2, baseDelayMs: 50, provider: { maxRetries: 0 } },
    quietStartup: true,
  });
  return {
    env: {
      ...kit.baseEnvironment(options.binary, options.tempHome),
      PI_CODING_AGENT_DIR: agentDir,
      // --offline covers update checks and install telemetry; the other two are belt and braces (README 0.73.1).
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PI_TELEMETRY: '0',
    },
    args: ['--mode', 'rpc', '--provider', 'fake', '--model', model, '--session-dir', sessionDir, '--offline'],
    home,
    models,
    files: [modelsJson, settingsJson],
  };
};
