// How the conformance suite runs Pi: its CLI is a Node script with a shebang; the home's PATH has the right node first.
import type { ConformanceRecipe } from '../../testing.js';

export const PI_CONFORMANCE: ConformanceRecipe = {
  options: ({ binary, home }) => ({ binaryPath: binary.args[0] ?? binary.command, baseEnv: home.env }),
};
