// The payload sink seam (sink.ts): on every recorded Pi fixture, what a caller's own sink receives from
// translatePiFrameInto / settleTurnInto, call by call, is exactly what the list path (translatePiFrame /
// settleTurn) returns, fed the way the adapter feeds them (prompt, abort, the get_state barrier).
import { readdirSync } from 'node:fs';
import type { EventPayload } from '@reins/core';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import {
  beginPiTurn,
  createPiTranslateState,
  isTurnEndPending,
  type PayloadSink,
  type PiTranslateState,
  settleTurn,
  settleTurnInto,
  translatePiFrame,
  translatePiFrameInto,
} from './translate.js';

interface Recorded {
  dir: 'in' | 'out';
  frame: Record<string, unknown>;
}

const dir = new URL('./fixtures/', import.meta.url);
const names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));

/** One frame through the list path or the sink path, the way the adapter dispatches it. */
function feed(
  state: PiTranslateState,
  { dir: direction, frame }: Recorded,
  translate: (state: PiTranslateState, frame: Record<string, unknown>) => EventPayload[],
  settle: (state: PiTranslateState) => EventPayload[],
): EventPayload[] {
  if (direction === 'in') {
    if (frame.type === 'prompt') beginPiTurn(state);
    if (frame.type === 'abort') state.interruptRequested = true;
    return [];
  }
  if (frame.type !== 'response') return translate(state, frame);
  return frame.command === 'get_state' && isTurnEndPending(state) ? settle(state) : [];
}

/** The sink path, its calls collected one by one. */
function throughSink(run: (sink: PayloadSink) => void): EventPayload[] {
  const calls: EventPayload[] = [];
  run({ emit: (payload) => calls.push(payload) });
  return calls;
}

describe('pi payload sink', () => {
  for (const name of names) {
    it(`${name}: translatePiFrameInto and settleTurnInto emit what the list path returns, in order`, () => {
      const frames = readFixtureSync(new URL(name, dir)).frames as Recorded[];
      const listState = createPiTranslateState();
      const sinkState = createPiTranslateState();
      let emitted = 0;
      for (const recorded of frames) {
        const expected = feed(listState, recorded, translatePiFrame, settleTurn);
        const received = feed(
          sinkState,
          recorded,
          (state, frame) => throughSink((sink) => translatePiFrameInto(state, frame, sink)),
          (state) => throughSink((sink) => settleTurnInto(state, sink)),
        );
        expect(received).toEqual(expected);
        emitted += received.length;
      }
      expect(emitted).toBeGreaterThan(0);
    });
  }
});
