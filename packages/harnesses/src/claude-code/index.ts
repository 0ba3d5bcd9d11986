// Claude Code through the Agent SDK, on the user's own `claude` binary.
export { type ClaudeCodeHarnessOptions, claudeCodeImplemented, createClaudeCodeHarness } from './adapter.js';
export { claudeBinarySpec } from './discovery.js';
