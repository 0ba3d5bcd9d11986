// OpenCode (1.18.33, native): one `fake` provider through the bundled @ai-sdk/openai-compatible, passed as
// OPENCODE_CONFIG_CONTENT; XDG folders inside the temp home; run as an ACP agent (docs/harnesses/acp.md).
//
// Quirks seen on 1.18.33: the model list also carries built-in cloud models that fail offline
// (enabled_providers limits it to ours); title generation calls the same provider; it writes
// ~/.cache/opencode/bin and ~/.bun/install/cache even for --version.
import { join } from 'node:path';
import type { HomeBuilder } from '../../../../testing.js';

export const buildHome: HomeBuilder = async (options, kit) => {
  const { binary } = options;
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model] = models as [string];
  const home = options.tempHome.home;
  const config = {
    $schema: 'https://opencode.ai/config.json',
    model: `fake/${model}`,
    small_model: `fake/${model}`,
    enabled_providers: ['fake'],
    autoupdate: false,
    share: 'disabled',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${options.modelServerUrl}/v1`, apiKey: kit.fakeApiKey },
        models: Object.fromEntries(models.map((id) => [id, { name: id }])),
      },
    },
  };
  return {
    env: {
      ...kit.baseEnvironment(binary, options.tempHome),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_CACHE_HOME: join(home, '.cache'),
    },
    args: ['acp', '--pure'],
    home,
    models,
    files: [],
  };
};
