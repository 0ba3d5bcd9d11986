// How the conformance suite runs Gemini CLI, and what it is known not to do.
import type { ConformanceRecipe } from '../../../../testing.js';
import { acpAgentOptions } from '../../../testing/agents.js';

export const GEMINI_CONFORMANCE: ConformanceRecipe = {
  options: acpAgentOptions,
  alternate: 'gemini-2.5-pro',
  knownLimitations: {
    // toToolCallContent drops a non-string returnDisplay, and the pty shell's display is ANSI cells.
    'tool call lifecycle': 'Gemini CLI 0.61.0 sends no shell output over ACP while its interactive (pty) shell is on',
    'resume in a new process': 'Gemini CLI 0.61.0 cannot session/load a session made by another process (-32603)',
    fork: 'Gemini CLI 0.61.0 advertises no session/fork (sessionCapabilities.fork)',
    history: 'Gemini CLI 0.61.0 advertises no session/list (sessionCapabilities.list)',
  },
};
