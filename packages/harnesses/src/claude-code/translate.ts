// Claude Code's translation is the shared stream-json one (protocols/stream-json), with Claude's
// own tool names and key sources (the defaults there). This module names it for the adapter's folder.
import {
  resolveStreamJsonOptions,
  TranslationState,
  translateFrame,
  translateFrameInto,
} from '../protocols/stream-json/index.js';

export const CLAUDE_SOURCE = 'claude.stream-json';

/** Resolved once: every session shares them (they are never changed). */
const CLAUDE_OPTIONS = resolveStreamJsonOptions({ source: CLAUDE_SOURCE, harnessName: 'Claude Code' });

export function createClaudeTranslation(): TranslationState {
  return new TranslationState(CLAUDE_OPTIONS);
}

export { translateFrame, translateFrameInto };
