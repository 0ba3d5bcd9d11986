// The stream-json translation fuzz driver Claude Code and Amp share (their testing/fuzz.ts): frames
// through the harness's translation, turns started where Reins wrote a user line, the translation's
// terminal completing the running turn, the way claude-code/adapter.ts and amp/adapter.ts do. Control
// frames are the Agent SDK's business and never reach Claude's translation.
import { isRecord, type PayloadOf } from '@reins/core';
import { type FuzzEnumField, type FuzzFrame, type FuzzKit, type FuzzStream, testingSource } from '../../testing.js';
import { type Emission, openBackgroundItems, type TranslationState } from './index.js';

/** The enum fields of the stream-json wire. */
export function streamJsonEnumFields(kit: FuzzKit): FuzzEnumField[] {
  return kit.enumFieldsOf(testingSource(import.meta.url, './wire.ts'));
}

export function driveStreamJson(
  frames: readonly FuzzFrame[],
  stream: FuzzStream,
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
