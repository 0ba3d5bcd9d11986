// Per-harness homes: config files plus a from-empty environment and launch arguments that point each real
// CLI at the scripted model server with every telemetry/update switch off. A harness's home builder lives
// in its own folder (testing/home.ts, loaded through its manifest's testing part); the ACP agents' homes
// are still here until they move into their folders (docs/architecture/adding-a-harness.md).
export {
  buildHarnessHome,
  type HarnessLaunch,
  harnessHomeBuilders,
  harnessLaunch,
} from './build.js';
export { buildClaudeAgentAcpHome } from './claude-agent-acp.js';
export { buildCodexAcpHome, codexAcpModelCatalog } from './codex-acp.js';
export { buildCopilotHome } from './copilot.js';
export { baseEnvironment, harnessPath } from './environment.js';
export { freeLoopbackPort } from './free-port.js';
export { buildGeminiHome, DEFAULT_GEMINI_MODEL } from './gemini.js';
export { buildClaudeCodeHome, buildCodexHome, buildOpenClawHome, buildPiHome } from './named.js';
export { buildOpenCodeHome } from './opencode.js';
export { privateTmpDir, privateTmpWrapper } from './private-tmp.js';
export { buildQwenCodeHome, QWEN_SECOND_MODEL } from './qwen-code.js';
export type { HarnessHome, HarnessHomeBuilder, HarnessHomeOptions, ModelPrice } from './types.js';
export { DEFAULT_FAKE_MODEL, FAKE_API_KEY } from './types.js';
