// ACP agents: the generic `acp` harness and the presets for the agents Reins knows.
export { ACP_IMPLEMENTED, AcpHarness, type AcpHarnessOptions, advertisedFrom } from './adapter.js';
export type { AcpPreset, AcpQuirks } from './preset.js';
export { createAcpHarness, type GenericAcpOptions } from './presets/acp.js';
export { claudeAgentAcpPreset, createClaudeAgentAcpHarness } from './presets/claude-agent-acp.js';
export { codexAcpPreset, createCodexAcpHarness } from './presets/codex-acp.js';
export { copilotPreset, copilotStatusChunk, createCopilotHarness } from './presets/copilot.js';
export { createGeminiHarness, geminiPreset, geminiThoughtChunk } from './presets/gemini.js';
export { createHermesHarness, hermesPreset } from './presets/hermes.js';
export { createOpencodeHarness, opencodeHidesModel, opencodePreset } from './presets/opencode.js';
export { createQwenCodeHarness, qwenCodePreset } from './presets/qwen-code.js';
export type { AcpSession } from './session.js';
