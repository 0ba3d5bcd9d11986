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
  quirks: { reopenAfterCancel: true },
  testedVersions: ['0.23.1'],
};

export function createClaudeAgentAcpHarness(options: AcpHarnessOptions = {}): AcpHarness {
  return new AcpHarness(claudeAgentAcpPreset, options);
}
