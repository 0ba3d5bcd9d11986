// How the conformance suite runs Qwen Code, and what it is known not to do.
import { CONFORMANCE_ALTERNATE_MODEL, type ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

/** Qwen 0.24.4 names models with their auth type. */
export const QWEN_CODE_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  primary: 'fake-model(openai)',
  alternate: `${CONFORMANCE_ALTERNATE_MODEL}(openai)`,
  alternateOnWire: CONFORMANCE_ALTERNATE_MODEL,
  knownLimitations: { fork: 'Qwen Code 0.24.4 advertises no session/fork (sessionCapabilities.fork)' },
  notApplicable: {
    'workspace posture blocks a write outside the cwd and allows one inside':
      'Qwen Code 0.24.4 asks its model an auto-approve question (non-streaming, one tool) before the shell command, which takes the scripted replies',
  },
};
