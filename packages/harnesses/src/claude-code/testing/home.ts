// Claude Code's hermetic home (2.1.197, native): Anthropic Messages at the model server, every switch that
// stops non-essential traffic, no retries, its temp folders inside the test's TMPDIR (docs/harnesses/claude-code.md).
//
// Quirks seen on 2.1.197:
// - Without the three DISABLE switches it sends title-generation POSTs, `HEAD /api/hello` and DNS lookups.
// - As root, bypassPermissions is refused unless IS_SANDBOX=1 (a user namespace makes everyone root).
// - It writes /tmp/claude-<uid> and /tmp/cc-socks unless TMPDIR / CLAUDE_CODE_TMPDIR point elsewhere.
// - Prints nothing before the first stdin line in stream-json input mode.
import { join } from 'node:path';
import type { HomeBuilder } from '../../testing.js';

export const buildHome: HomeBuilder = async (request, kit) => {
  const models = kit.modelList(request.model ?? kit.defaultModel, request.extraModels);
  const [model] = models as [string];
  const { tempHome } = request;
  return {
    env: {
      ...kit.baseEnvironment(request.binary, tempHome),
      ANTHROPIC_BASE_URL: request.modelServerUrl,
      ANTHROPIC_API_KEY: kit.fakeApiKey,
      ANTHROPIC_MODEL: model,
      CLAUDE_CONFIG_DIR: join(tempHome.home, '.claude'),
      CLAUDE_CODE_TMPDIR: tempHome.tmp,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      IS_SANDBOX: '1',
    },
    // The Agent SDK's own spawn line (stream-json both ways), plus the fake model and bypass posture.
    args: [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--input-format',
      'stream-json',
      '--model',
      model,
      '--permission-mode',
      'bypassPermissions',
    ],
    home: tempHome.home,
    models,
    files: [],
  };
};
