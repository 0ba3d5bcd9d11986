// Claude Code's translation is the shared stream-json one (protocols/stream-json), with Claude's
// own tool names and key sources (the defaults there). This module names it for the adapter's folder.
import { createTranslationState, type TranslationState, translateFrame } from '../protocols/stream-json/index.js';

export const CLAUDE_SOURCE = 'claude.stream-json';

export function createClaudeTranslation(): TranslationState {
  return createTranslationState({ source: CLAUDE_SOURCE });
}

export { translateFrame };
