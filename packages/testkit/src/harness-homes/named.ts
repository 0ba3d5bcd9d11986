// The named home builders the testkit has always exported, kept for the tests that call them; new code
// calls buildHarnessHome(id, options), whose builders live in each harness's folder (testing/home.ts).
import { buildHarnessHome } from './build.js';
import type { HarnessHomeBuilder } from './types.js';

export const buildCodexHome: HarnessHomeBuilder = (options) => buildHarnessHome('codex', options);
export const buildClaudeCodeHome: HarnessHomeBuilder = (options) => buildHarnessHome('claude-code', options);
export const buildPiHome: HarnessHomeBuilder = (options) => buildHarnessHome('pi', options);
export const buildOpenClawHome: HarnessHomeBuilder = (options) => buildHarnessHome('openclaw', options);
