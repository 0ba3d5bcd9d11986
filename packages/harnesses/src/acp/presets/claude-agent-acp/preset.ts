// Claude Code through its ACP adapter, tested with @agentclientprotocol/claude-agent-acp 0.101.0 (v1 and v2;
// Agent SDK 0.3.318) and the previous pin @zed-industries/claude-agent-acp 0.23.1 (Claude Code 2.1.83).

import { envOrHome } from '../../../runtime/confinement.js';
import type { AcpPreset } from '../../preset.js';

export const claudeAgentAcpPreset: AcpPreset = {
  id: 'claude-agent-acp',
  displayName: 'Claude Code (ACP)',
  binary: {
    id: 'claude-agent-acp',
    names: ['claude-agent-acp'],
    stateFolders: (env) => envOrHome(env, 'CLAUDE_CONFIG_DIR', '.claude'),
  },
  args: () => [],
  multiSession: true,
  // 0.23.1 passes `_meta.claudeCode.options` of session/new, load and resume into the Agent SDK's
  // query options (acp-agent.js createSession), where allowedTools lets those tools run unasked.
  allowedToolsMeta: (tools) => ({ claudeCode: { options: { allowedTools: tools } } }),
  quirks: { reopenAfterCancel: true },
  testedVersions: ['0.101.0', '0.23.1'],
};
