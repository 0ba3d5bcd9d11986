// Claude Code and Amp speak the same stream-json: frames through the shared translation (Claude Code's
// translateFrame, Amp's translateAmpFrame with its settle rule), turns started where Reins wrote a user
// line, the translation's terminal completing the running turn, the way claude-code/adapter.ts and
// amp/adapter.ts do. Control frames are the Agent SDK's business and never reach Claude's translation.
import type { PayloadOf } from '@reins/core';
import type { CheckedEventStream, FixtureFrame } from '@reins/testkit';
import { beginAmpTurn, createAmpTranslateState, translateAmpFrame } from '../../src/amp/translate.js';
import { CLAUDE_SOURCE, createClaudeTranslation, translateFrame } from '../../src/claude-code/translate.js';
import { type Emission, openBackgroundItems, type TranslationState } from '../../src/protocols/stream-json/index.js';
import { enumFieldsOf, type FuzzTarget, isRecord, loadCorpus, SRC } from './target.js';

function drive(
  frames: readonly FixtureFrame[],
  stream: CheckedEventStream,
  source: string,
  hooks: {
    begin(): void;
    interrupt(): void;
    translate(frame: unknown): Emission[];
    sdkOnly: boolean;
    /** Claude Code's background work (tasks.ts): what the translation holds open past a turn's end. */
    background?: TranslationState;
  },
): void {
  let queued = 0;
  const start = () => {
    hooks.begin();
    stream.startTurn({ text: 'fuzzed turn' });
  };
  for (const { dir, frame } of frames) {
    const type = isRecord(frame) && typeof frame.type === 'string' ? frame.type : undefined;
    if (dir === 'in') {
      if (type === 'user') {
        if (stream.activeTurnId === null) start();
        else queued++;
      }
      if (type === 'control_request' && isRecord(frame) && isRecord(frame.request)) {
        if (frame.request.subtype === 'interrupt') hooks.interrupt();
      }
      continue;
    }
    if (dir !== 'out') continue;
    if (hooks.sdkOnly && type?.startsWith('control_')) continue;
    const native = { source, ...(type ? { method: type } : {}), frame };
    for (const emission of hooks.translate(frame)) {
      const meta = {
        native,
        ...(emission.parentItemId !== undefined ? { parentItemId: emission.parentItemId } : {}),
        ...(emission.background ? { background: true } : {}),
      };
      const payload = emission.payload;
      if (payload.type !== 'turn.completed') {
        stream.emit(payload, meta);
        continue;
      }
      if (stream.activeTurnId === null) {
        stream.emit({ type: 'passthrough', frame }, meta);
        continue;
      }
      const { type: _type, ...completion } = payload as PayloadOf<'turn.completed'>;
      // claude-code/session.ts: background work goes on past the turn, its items stay open.
      if (hooks.background) {
        for (const id of openBackgroundItems(hooks.background)) stream.stream.keepAfterTurn(id);
      }
      stream.completeTurn(completion, meta);
      stream.emit({ type: 'session.status', status: 'idle' });
      if (queued > 0) {
        queued--;
        start();
      }
    }
  }
}

const streamJsonEnums = () => enumFieldsOf('protocols/stream-json/wire.ts');

export const claudeCodeTarget: FuzzTarget = {
  name: 'claude-code',
  corpus: loadCorpus(`${SRC}claude-code/fixtures`),
  mutation: { enumFields: streamJsonEnums() },
  replay(frames, stream) {
    const state = createClaudeTranslation();
    drive(frames, stream, CLAUDE_SOURCE, {
      begin: () => {},
      interrupt: () => {
        state.interruptRequested = true;
      },
      translate: (frame) => translateFrame(state, frame),
      sdkOnly: true,
      background: state,
    });
  },
};

export const ampTarget: FuzzTarget = {
  name: 'amp',
  corpus: loadCorpus(`${SRC}amp/fixtures`),
  mutation: { enumFields: [...streamJsonEnums()] },
  replay(frames, stream) {
    const state = createAmpTranslateState();
    drive(frames, stream, 'amp.stream-json', {
      begin: () => beginAmpTurn(state),
      interrupt: () => {
        state.inner.interruptRequested = true;
      },
      translate: (frame) => translateAmpFrame(state, frame),
      sdkOnly: false,
    });
  },
};
