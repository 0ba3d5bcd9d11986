// claude-agent-acp's pinned CLI in harness-clis/ (and its previous pin, the package it moved from), and the
// name its ACP initialize answer gives (it has no version flag).
import { type HarnessPinSpec, nodeScript } from '../../../../testing.js';
import { ACP_SDK } from '../../../testing/agents.js';

/** 0.101.0 declares Node >= 22: the bundled Node 24. The previous pin, 0.23.1, runs on the tests' Node. */
export const CLAUDE_AGENT_ACP_PIN = {
  id: 'claude-agent-acp',
  packageName: '@agentclientprotocol/claude-agent-acp',
  sdk: ACP_SDK,
  locate: nodeScript('dist/index.js', 'bundled'),
  previous: { packageName: '@zed-industries/claude-agent-acp', locate: nodeScript('dist/index.js', 'host') },
  // No --version (0.23.1 ignores arguments and waits on stdin); the @agentclientprotocol pins name their package.
  initializeName: { current: '@agentclientprotocol/claude-agent-acp', previous: '@zed-industries/claude-agent-acp' },
} satisfies HarnessPinSpec;
