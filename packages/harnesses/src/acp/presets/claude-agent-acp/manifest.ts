// claude-agent-acp's manifest: install hints and its test side (pin, conformance recipe, hermetic home).
import { presetManifest } from '../../preset-manifest.js';
import { claudeAgentAcpPreset } from './preset.js';
import { CLAUDE_AGENT_ACP_CONFORMANCE } from './testing/conformance.js';
import { CLAUDE_AGENT_ACP_PIN } from './testing/pin.js';

export const CLAUDE_AGENT_ACP_MANIFEST = presetManifest(claudeAgentAcpPreset, {
  // Moved from @zed-industries (stopped at 0.23.1) to @agentclientprotocol (docs/architecture/acp.md).
  install: 'npm install -g @agentclientprotocol/claude-agent-acp',
  npmPackage: '@agentclientprotocol/claude-agent-acp',
  testing: {
    pin: CLAUDE_AGENT_ACP_PIN,
    conformance: CLAUDE_AGENT_ACP_CONFORMANCE,
    home: async () => (await import('./testing/home.js')).buildHome,
    tools: {
      shell: [{ name: 'Bash', args: 'command' }],
      write: [{ name: 'Write', args: { kind: 'content', pathKey: 'file_path' } }],
    },
  },
});
