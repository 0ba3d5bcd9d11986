// Claude Code through the Agent SDK, on the user's own `claude` binary.
export {
  CLAUDE_SPEC_SUPPORT,
  type ClaudeCodeHarnessOptions,
  claudeCodeImplemented,
  createClaudeCodeHarness,
} from './adapter.js';
export { claudeBinarySpec } from './discovery.js';
export type { ClaudeCodeSession } from './session.js';
