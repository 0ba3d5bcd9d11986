// The Codex harness (`codex app-server`): the factory and what tests and tools need beside it.
export { CODEX_IMPLEMENTED, CODEX_SPEC_SUPPORT, type CodexHarnessOptions, createCodexHarness } from './adapter.js';
export { codexBinarySpec } from './discovery.js';
