// The named home builders the testkit has always exported, kept for the tests that call them; new code
// calls buildHarnessHome(id, options), whose builders live in each harness's folder (its testing part).
import { buildHarnessHome } from './build.js';
import type { HarnessHomeBuilder } from './types.js';

export const buildCodexHome: HarnessHomeBuilder = (options) => buildHarnessHome('codex', options);
export const buildClaudeCodeHome: HarnessHomeBuilder = (options) => buildHarnessHome('claude-code', options);
export const buildPiHome: HarnessHomeBuilder = (options) => buildHarnessHome('pi', options);
export const buildOpenClawHome: HarnessHomeBuilder = (options) => buildHarnessHome('openclaw', options);
export const buildGeminiHome: HarnessHomeBuilder = (options) => buildHarnessHome('gemini', options);
export const buildQwenCodeHome: HarnessHomeBuilder = (options) => buildHarnessHome('qwen-code', options);
export const buildCopilotHome: HarnessHomeBuilder = (options) => buildHarnessHome('copilot', options);
export const buildOpenCodeHome: HarnessHomeBuilder = (options) => buildHarnessHome('opencode', options);
export const buildClaudeAgentAcpHome: HarnessHomeBuilder = (options) => buildHarnessHome('claude-agent-acp', options);
export const buildCodexAcpHome: HarnessHomeBuilder = (options) => buildHarnessHome('codex-acp', options);
