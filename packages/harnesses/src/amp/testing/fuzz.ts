// Amp's translation fuzz target: its fixtures through translateAmpFrame (with its settle rule) on the
// shared stream-json driver (protocols/stream-json/fuzz.ts).

import { driveStreamJson, streamJsonEnumFields } from '../../protocols/stream-json/fuzz.js';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import { beginAmpTurn, createAmpTranslateState, translateAmpFrame } from '../translate.js';

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'amp',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: streamJsonEnumFields(kit) },
  replay(frames, stream) {
    const state = createAmpTranslateState();
    driveStreamJson(frames, stream, 'amp.stream-json', {
      begin: () => beginAmpTurn(state),
      interrupt: () => {
        state.inner.interruptRequested = true;
      },
      translate: (frame) => translateAmpFrame(state, frame),
      sdkOnly: false,
    });
  },
});
