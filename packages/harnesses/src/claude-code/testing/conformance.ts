// How the conformance suite runs Claude Code: the native binary with the hermetic home's environment.
import type { ConformanceRecipe } from '../../testing.js';

export const CLAUDE_CODE_CONFORMANCE: ConformanceRecipe = {
  options: ({ binary, home }) => ({ binaryPath: binary.command, baseEnv: home.env }),
};
