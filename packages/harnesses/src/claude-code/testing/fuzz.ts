// Claude Code's translation fuzz target: its fixtures through translateFrame on the shared stream-json
// driver (protocols/stream-json/fuzz.ts), background items kept open past a turn as session.ts does.

import { driveStreamJson, streamJsonEnumFields } from '../../protocols/stream-json/fuzz.js';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import { CLAUDE_SOURCE, createClaudeTranslation, translateFrame } from '../translate.js';

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'claude-code',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: streamJsonEnumFields(kit) },
  replay(frames, stream) {
    const state = createClaudeTranslation();
    driveStreamJson(frames, stream, CLAUDE_SOURCE, {
      begin: () => {},
      interrupt: () => {
        state.interruptRequested = true;
      },
      translate: (frame) => translateFrame(state, frame),
      sdkOnly: true,
      background: state,
    });
  },
});
