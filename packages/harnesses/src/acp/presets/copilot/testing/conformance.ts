// How the conformance suite runs GitHub Copilot CLI, and what it is known not to do.
import type { ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

export const COPILOT_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  knownLimitations: { fork: 'GitHub Copilot CLI 1.0.102 advertises no session/fork (sessionCapabilities.fork)' },
};
