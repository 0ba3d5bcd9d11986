// Codex app-server: notifications through translateNotification, turn/completed through outcomeOf, the
// way codex/adapter.ts does (it keeps turn/started and turn/completed for itself). Enum fields come from
// the generated wire types (codex/wire/generated), so a regenerated wire is fuzzed as it is.
import { isRecord, type Usage } from '@reins/core';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import {
  createTranslateState,
  NATIVE_SOURCE,
  type NotificationFrame,
  outcomeOf,
  translateNotification,
} from '../translate.js';
import type { Turn } from '../wire.js';

const zero = () => ({
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
});

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'codex',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: kit.enumFieldsOf(testingSource(import.meta.url, '../wire/generated')) },
  replay(frames, stream) {
    const state = createTranslateState();
    let active: { turnId: string; nativeTurnId?: unknown; usage?: Usage } | undefined;
    let queued = 0;
    const begin = () => {
      const turnId = stream.startTurn({ text: 'fuzzed turn' });
      if (turnId === undefined) return;
      active = { turnId };
      state.turnId = turnId;
      state.planCount = 0;
      state.totalAtTurnStart = state.lastTotal ?? zero();
    };
    for (const { dir, frame } of frames) {
      if (dir === 'in') {
        if (isRecord(frame) && frame.method === 'turn/start') {
          if (active) queued++;
          else begin();
        }
        continue;
      }
      if (dir !== 'out') continue;
      if (!isRecord(frame)) {
        stream.emit({ type: 'passthrough', frame }, { native: { source: NATIVE_SOURCE, frame } });
        continue;
      }
      const result = frame.result;
      if (state.threadId === undefined && isRecord(result) && isRecord(result.thread)) {
        if (typeof result.thread.id === 'string') state.threadId = result.thread.id;
      }
      // Responses and server requests (approvals) are the adapter's own business, not translation.
      if (typeof frame.method !== 'string' || 'id' in frame) continue;
      const native = { source: NATIVE_SOURCE, method: frame.method, frame };
      const params = (frame.params ?? {}) as Record<string, unknown>;
      const mainThread = params.threadId === undefined || params.threadId === state.threadId;
      if (frame.method === 'turn/started' && mainThread && active && params.turn) {
        active.nativeTurnId ??= (params.turn as { id?: unknown }).id;
        continue;
      }
      const turn = params.turn as Turn | undefined;
      if (frame.method === 'turn/completed' && mainThread && active && turn) {
        const id = (turn as { id?: unknown }).id;
        if (active.nativeTurnId === undefined || active.nativeTurnId === id) {
          stream.completeTurn(
            { outcome: outcomeOf(turn), ...(active.usage ? { usage: active.usage } : {}) },
            { native },
          );
          active = undefined;
          state.turnId = undefined;
          if (queued > 0) {
            queued--;
            begin();
          }
          continue;
        }
      }
      for (const translated of translateNotification(state, frame as NotificationFrame)) {
        const payload = translated.payload;
        if (payload.type === 'usage.updated' && active && mainThread) {
          const { type: _type, ...usage } = payload;
          active.usage = usage;
        }
        stream.emit(payload, {
          native,
          ...(translated.parentItemId !== undefined ? { parentItemId: translated.parentItemId } : {}),
        });
      }
    }
  },
});
