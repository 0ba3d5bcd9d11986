// Claude Code through Zed's ACP adapter, tested with @zed-industries/claude-agent-acp 0.23.1
// (it bundles the Agent SDK and Claude Code 2.1.83).
import { AcpHarness, type AcpHarnessOptions } from '../adapter.js';
import { binarySpec } from '../discovery.js';
import type { AcpPreset } from '../preset.js';

export const claudeAgentAcpPreset: AcpPreset = {
  id: 'claude-agent-acp',
  displayName: 'Claude Code (ACP)',
  binary: binarySpec('claude-agent-acp', ['claude-agent-acp']),
  args: () => [],
  multiSession: true,
  // 0.23.1 passes `_meta.claudeCode.options` of session/new, load and resume into the Agent SDK's
  // query options (acp-agent.js createSession), where allowedTools lets those tools run unasked.
  allowedToolsMeta: (tools) => ({ claudeCode: { options: { allowedTools: tools } } }),
  quirks: { reopenAfterCancel: true },
  testedVersions: ['0.23.1'],
};

export function createClaudeAgentAcpHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(claudeAgentAcpPreset, options);
}
