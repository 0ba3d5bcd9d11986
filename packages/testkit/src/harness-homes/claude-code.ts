// Claude Code (2.1.197, native): Anthropic Messages at the model server, every switch that stops
// non-essential traffic, no retries, its temp folders inside the test's TMPDIR (docs/harnesses/claude-code.md).
//
// Quirks seen on 2.1.197:
// - Without the three DISABLE switches it sends title-generation POSTs, `HEAD /api/hello` and DNS lookups.
// - As root, bypassPermissions is refused unless IS_SANDBOX=1 (a user namespace makes everyone root).
// - It writes /tmp/claude-<uid> and /tmp/cc-socks unless TMPDIR / CLAUDE_CODE_TMPDIR point elsewhere.
// - Prints nothing before the first stdin line in stream-json input mode.
import { join } from 'node:path';
import { type HarnessBinary, harnessBinary } from '../hermetic/binaries.js';
import type { TempHome } from '../hermetic/temp-home.js';
import { baseEnvironment, modelList } from './environment.js';
import { DEFAULT_FAKE_MODEL, FAKE_API_KEY, type HarnessHomeBuilder } from './types.js';

/** The Claude Code environment shared with claude-agent-acp (which runs Claude Code underneath). */
export function claudeEnvironment(
  binary: HarnessBinary,
  tempHome: TempHome,
  modelServerUrl: string,
  model: string,
): Record<string, string> {
  return {
    ...baseEnvironment(binary, tempHome),
    ANTHROPIC_BASE_URL: modelServerUrl,
    ANTHROPIC_API_KEY: FAKE_API_KEY,
    ANTHROPIC_MODEL: model,
    CLAUDE_CONFIG_DIR: join(tempHome.home, '.claude'),
    CLAUDE_CODE_TMPDIR: tempHome.tmp,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    IS_SANDBOX: '1',
  };
}

export const buildClaudeCodeHome: HarnessHomeBuilder = async (options) => {
  const binary = options.binary ?? harnessBinary('claude-code');
  const models = modelList(options.model ?? DEFAULT_FAKE_MODEL, options.extraModels);
  const [model] = models as [string];
  return {
    id: 'claude-code',
    env: claudeEnvironment(binary, options.tempHome, options.modelServerUrl, model),
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
    home: options.tempHome.home,
    models,
    files: [],
  };
};
