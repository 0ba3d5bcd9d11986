// How the conformance suite runs claude-agent-acp, and what does not apply to it.
import type { ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

export const CLAUDE_AGENT_ACP_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  notApplicable: {
    'workspace posture blocks a write outside the cwd and allows one inside':
      'claude-agent-acp 0.101.0 refuses the write to the home folder by its auto-mode classifier before the command runs ("Permission denied: Auto mode could not evaluate this action"), so the confinement is not what is shown',
  },
};
