// Per-harness homes: config files plus a from-empty environment and launch arguments that point each real
// CLI at the scripted model server with every telemetry/update switch off.
import { type HarnessBinary, type HarnessId, harnessBinary } from '../hermetic/binaries.js';
import { buildClaudeAgentAcpHome } from './claude-agent-acp.js';
import { buildClaudeCodeHome } from './claude-code.js';
import { buildCodexHome } from './codex.js';
import { buildCodexAcpHome } from './codex-acp.js';
import { buildCopilotHome } from './copilot.js';
import { buildGeminiHome } from './gemini.js';
import { buildOpenClawHome } from './openclaw.js';
import { buildOpenCodeHome } from './opencode.js';
import { buildPiHome } from './pi.js';
import { buildQwenCodeHome } from './qwen-code.js';
import type { HarnessHome, HarnessHomeBuilder, HarnessHomeOptions } from './types.js';

export { claudeEnvironment } from './claude-code.js';
export { CODEX_API_KEY_ENV, codexConfigToml, codexModelCatalog } from './codex.js';
export { codexAcpModelCatalog } from './codex-acp.js';
export { baseEnvironment, harnessPath } from './environment.js';
export { freeLoopbackPort } from './free-port.js';
export { DEFAULT_GEMINI_MODEL } from './gemini.js';
export { privateTmpDir, privateTmpWrapper } from './private-tmp.js';
export { QWEN_SECOND_MODEL } from './qwen-code.js';
export type { HarnessHome, HarnessHomeBuilder, HarnessHomeOptions, ModelPrice } from './types.js';
export { DEFAULT_FAKE_MODEL, FAKE_API_KEY } from './types.js';
export {
  buildClaudeAgentAcpHome,
  buildClaudeCodeHome,
  buildCodexAcpHome,
  buildCodexHome,
  buildCopilotHome,
  buildGeminiHome,
  buildOpenClawHome,
  buildOpenCodeHome,
  buildPiHome,
  buildQwenCodeHome,
};

export const harnessHomeBuilders: Record<HarnessId, HarnessHomeBuilder> = {
  codex: buildCodexHome,
  'claude-code': buildClaudeCodeHome,
  gemini: buildGeminiHome,
  'qwen-code': buildQwenCodeHome,
  copilot: buildCopilotHome,
  opencode: buildOpenCodeHome,
  'claude-agent-acp': buildClaudeAgentAcpHome,
  'codex-acp': buildCodexAcpHome,
  pi: buildPiHome,
  openclaw: buildOpenClawHome,
};

export function buildHarnessHome(id: HarnessId, options: HarnessHomeOptions): Promise<HarnessHome> {
  return harnessHomeBuilders[id](options);
}

export interface HarnessLaunch {
  home: HarnessHome;
  binary: HarnessBinary;
  /** What to spawn: the wrapper (if any), then the binary and all arguments. */
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Binary + home in one: the exact spawn line for a harness in its headless protocol mode. */
export async function harnessLaunch(id: HarnessId, options: HarnessHomeOptions): Promise<HarnessLaunch> {
  const binary = options.binary ?? harnessBinary(id);
  const home = await buildHarnessHome(id, { ...options, binary });
  const [command, ...args] = [...(home.wrapper ?? []), binary.command, ...binary.args, ...home.args] as [
    string,
    ...string[],
  ];
  return { home, binary, command, args, env: home.env };
}
