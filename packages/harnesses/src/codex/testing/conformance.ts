// How the conformance suite runs Codex: the native binary with the hermetic home's environment.
import type { ConformanceRecipe } from '../../testing.js';

export const CODEX_CONFORMANCE: ConformanceRecipe = {
  options: ({ binary, home }) => ({ binaryPath: binary.command, baseEnv: home.env }),
};
