// OpenClaw gateway: frames that pass the connection's envelope check (GatewayFrameSchema) and are
// events go through translateOpenClawEvent; chat.send starts a turn with its idempotency key as run id,
// chat.abort marks the interrupt, the translation's terminal completes the turn, usage comes from the
// chat.history answer (openClawRunUsage), the way openclaw/adapter.ts does.
import { isRecord } from '@reins/core';
import { type FuzzTargetBuilder, testingSource } from '../../testing.js';
import {
  beginOpenClawRun,
  createOpenClawTranslateState,
  openClawRunUsage,
  translateOpenClawEvent,
} from '../translate.js';
import { type GatewayEvent, GatewayFrameSchema } from '../wire.js';

const SOURCE = 'openclaw.gateway';

export const buildFuzzTarget: FuzzTargetBuilder = (kit) => ({
  name: 'openclaw',
  corpus: kit.loadCorpus(testingSource(import.meta.url, '../fixtures')),
  mutation: { enumFields: kit.enumFieldsOf(testingSource(import.meta.url, '../wire.ts')) },
  replay(frames, stream) {
    // The adapter's session key is the one it sent chat.send with (before any damage to the harness side).
    const send = frames.find(({ dir, frame }) => dir === 'in' && isRecord(frame) && frame.method === 'chat.send');
    const sendParams = isRecord(send?.frame) && isRecord(send.frame.params) ? send.frame.params : {};
    const state = createOpenClawTranslateState(String(sendParams.sessionKey ?? 'main'));
    const history = new Set<unknown>();
    let lastRun: string | undefined;
    for (const { dir, frame } of frames) {
      if (dir === 'in') {
        if (!isRecord(frame)) continue;
        const params = isRecord(frame.params) ? frame.params : {};
        if (frame.method === 'chat.send' && stream.activeTurnId === null) {
          beginOpenClawRun(state, String(params.idempotencyKey));
          stream.startTurn({ text: 'fuzzed turn' });
        }
        if (frame.method === 'chat.abort') state.interruptRequested = true;
        if (frame.method === 'chat.history') history.add(frame.id);
        continue;
      }
      if (dir !== 'out') continue;
      const parsed = GatewayFrameSchema.safeParse(frame);
      if (!parsed.success) {
        stream.emit({ type: 'passthrough', frame }, { native: { source: SOURCE, frame } });
        continue;
      }
      const data = parsed.data;
      if (data.type === 'res' && history.has(data.id) && lastRun) {
        const payload = isRecord(data.payload) ? data.payload : {};
        const usage = openClawRunUsage(Array.isArray(payload.messages) ? payload.messages : [], lastRun);
        if (usage) stream.emit({ type: 'usage.updated', ...usage });
        continue;
      }
      if (data.type !== 'event') continue;
      const event = data as unknown as GatewayEvent;
      const native = { source: SOURCE, method: event.event, frame };
      const { events, terminal } = translateOpenClawEvent(state, event);
      for (const payload of events) stream.emit(payload, { native });
      if (terminal && stream.activeTurnId !== null && state.runId === terminal.runId) {
        lastRun = terminal.runId;
        stream.completeTurn(
          { outcome: terminal.outcome, ...(terminal.stopReason ? { stopReason: terminal.stopReason } : {}) },
          { native },
        );
        state.runId = undefined;
      }
    }
  },
});
