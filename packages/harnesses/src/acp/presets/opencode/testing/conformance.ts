// How the conformance suite runs OpenCode.
import { CONFORMANCE_ALTERNATE_MODEL, type ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

/** OpenCode 1.18.33 names models provider/model. */
export const OPENCODE_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  primary: 'fake/fake-model',
  alternate: `fake/${CONFORMANCE_ALTERNATE_MODEL}`,
  alternateOnWire: CONFORMANCE_ALTERNATE_MODEL,
};
