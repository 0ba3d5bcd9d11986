// Pi RPC: frames that pass the adapter's envelope check (an object with a string type) through
// translatePiFrame; a prompt starts a turn, an abort marks the interrupt, the get_state answer settles a
// pending end (settleTurn), the way pi/adapter.ts does.
import { type EventPayload, isRecord } from '@reins/core';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import { beginPiTurn, createPiTranslateState, isTurnEndPending, settleTurn, translatePiFrame } from '../translate.js';
import { PiFrameSchema } from '../wire.js';

const SOURCE = 'pi.rpc';

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'pi',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: kit.enumFieldsOf(testingSource(import.meta.url, '../wire.ts')) },
  replay(frames, stream) {
    const state = createPiTranslateState();
    let queued = 0;
    const start = () => {
      beginPiTurn(state);
      stream.startTurn({ text: 'fuzzed turn' });
    };
    const emitAll = (payloads: EventPayload[], native?: { source: string; method?: string; frame: unknown }) => {
      for (const payload of payloads) {
        if (payload.type === 'turn.completed') {
          if (stream.activeTurnId === null) continue;
          const { type: _type, ...completion } = payload;
          stream.completeTurn(completion, native ? { native } : {});
          if (queued > 0) {
            queued--;
            start();
          }
          continue;
        }
        stream.emit(payload, native ? { native } : {});
      }
    };
    for (const { dir, frame } of frames) {
      if (dir === 'in') {
        if (isRecord(frame) && frame.type === 'prompt') {
          if (stream.activeTurnId === null) start();
          else queued++;
        }
        if (isRecord(frame) && frame.type === 'abort') state.interruptRequested = true;
        continue;
      }
      if (dir !== 'out') continue;
      const parsed = PiFrameSchema.safeParse(frame);
      if (!parsed.success) {
        stream.emit({ type: 'passthrough', frame }, { native: { source: SOURCE, frame } });
        continue;
      }
      const native = { source: SOURCE, method: parsed.data.type, frame };
      if (parsed.data.type === 'response') {
        if (parsed.data.command === 'get_state' && isTurnEndPending(state)) emitAll(settleTurn(state));
        continue;
      }
      emitAll(translatePiFrame(state, parsed.data), native);
    }
  },
});
