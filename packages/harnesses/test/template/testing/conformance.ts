// The template harness's conformance recipe: its pinned binary and the home built for it, as options.
import type { ConformanceRecipe } from '../../../src/testing.js';

export const TEMPLATE_CONFORMANCE: ConformanceRecipe = {
  options: (launch) => ({ binaryPath: launch.binary.command, baseEnv: launch.home.env }),
  knownLimitations: { interrupt: 'the template protocol has no interrupt line' },
};
