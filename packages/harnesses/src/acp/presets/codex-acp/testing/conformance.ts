// How the conformance suite runs codex-acp, and what it is known not to do.
import type { ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

/** codex-acp 0.16.0 takes the home's catalog ids as they are (set_config_option on its `model` option). */
export const CODEX_ACP_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  knownLimitations: { fork: 'codex-acp 0.16.0 advertises no session/fork (sessionCapabilities.fork)' },
};
