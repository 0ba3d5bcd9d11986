// CODEX_HOME/config.toml for the scripted `fake` provider on the Responses API, written once here for every
// home that runs Codex's core (Codex itself, codex-acp): handed to their builders in the HomeKit
// (docs/harnesses/codex.md, docs/harnesses/acp.md).
import { join } from 'node:path';
import type { HomeKit } from '@reins/harnesses';
import { writeConfig } from './environment.js';
import { FAKE_API_KEY } from './types.js';

/** The variable the `fake` provider reads its key from. */
const API_KEY_ENV = 'FAKE_OPENAI_API_KEY';

const toml = (value: string) => JSON.stringify(value);

export const writeCodexConfig: HomeKit['writeCodexConfig'] = async (codexHome, config) => {
  const text = [
    `model = ${toml(config.model)}`,
    'model_provider = "fake"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'check_for_update_on_startup = false',
    'web_search = "disabled"',
    `model_catalog_json = ${toml(config.catalogPath)}`,
    '',
    '[model_providers.fake]',
    'name = "Fake"',
    `base_url = ${toml(`${config.modelServerUrl}/v1`)}`,
    `env_key = ${toml(API_KEY_ENV)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    // Otherwise Codex runs `git ls-remote https://github.com/...` at start.
    '[features]',
    'plugins = false',
    '',
  ].join('\n');
  const path = await writeConfig(join(codexHome, 'config.toml'), text);
  return { path, env: { [API_KEY_ENV]: FAKE_API_KEY } };
};
