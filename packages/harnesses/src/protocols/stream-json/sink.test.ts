// The emission sink seam (sink.ts): on every recorded Claude Code and Amp fixture, what a caller's own sink
// receives from translateFrameInto / translateAmpFrameInto, call by call, is exactly what the list path
// (translateFrame / translateAmpFrame) returns: the same payloads, lanes and background flags, in order.
import { readdirSync } from 'node:fs';
import { readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import {
  type AmpTranslateState,
  beginAmpTurn,
  createAmpTranslateState,
  translateAmpFrame,
  translateAmpFrameInto,
} from '../../amp/translate.js';
import { createClaudeTranslation, translateFrame, translateFrameInto } from '../../claude-code/translate.js';
import type { Emission, EmissionSink, TranslationState } from './index.js';

/** What a sink received, one entry per emit call, shaped as the list path shapes an Emission. */
class RecordingSink implements EmissionSink {
  readonly calls: Emission[] = [];

  emit(payload: Emission['payload'], parentItemId: string | undefined, background: boolean): void {
    const emission: Emission = parentItemId === undefined ? { payload } : { payload, parentItemId };
    if (background) emission.background = true;
    this.calls.push(emission);
  }
}

interface Recorded {
  dir: 'in' | 'out';
  frame: unknown;
}

function fixtures(folder: string): Array<{ name: string; frames: Recorded[] }> {
  const dir = new URL(`../../${folder}/fixtures/`, import.meta.url);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => ({ name, frames: readFixtureSync(new URL(name, dir)).frames as Recorded[] }));
}

const typeOf = (frame: unknown) => (frame as { type?: unknown } | null)?.type;

/**
 * Two translations of one fixture side by side, fed the frames the adapter feeds (the Agent SDK keeps the
 * control protocol to itself); per frame the sink path's calls must equal the list path's emissions.
 */
function compare<S>(
  frames: Recorded[],
  create: () => S,
  onUserLine: (state: S) => void,
  list: (state: S, frame: unknown) => Emission[],
  into: (state: S, frame: unknown, sink: EmissionSink) => void,
): number {
  const listState = create();
  const sinkState = create();
  let emitted = 0;
  for (const { dir, frame } of frames) {
    if (dir === 'in') {
      if (typeOf(frame) === 'user') {
        onUserLine(listState);
        onUserLine(sinkState);
      }
      continue;
    }
    if (String(typeOf(frame)).startsWith('control_')) continue;
    const expected = list(listState, frame);
    const sink = new RecordingSink();
    into(sinkState, frame, sink);
    expect(sink.calls).toEqual(expected);
    emitted += sink.calls.length;
  }
  return emitted;
}

describe('stream-json emission sink', () => {
  for (const { name, frames } of fixtures('claude-code')) {
    it(`claude-code ${name}: translateFrameInto emits what translateFrame lists, in order`, () => {
      const emitted = compare<TranslationState>(
        frames,
        createClaudeTranslation,
        () => {},
        translateFrame,
        translateFrameInto,
      );
      expect(emitted).toBeGreaterThan(0);
    });
  }

  for (const { name, frames } of fixtures('amp')) {
    it(`amp ${name}: translateAmpFrameInto emits what translateAmpFrame lists, with the settle rule`, () => {
      const emitted = compare<AmpTranslateState>(
        frames,
        createAmpTranslateState,
        beginAmpTurn,
        translateAmpFrame,
        translateAmpFrameInto,
      );
      expect(emitted).toBeGreaterThan(0);
    });
  }

  it('hands the sink each payload as it is made: a frame with several events reaches it one call at a time', () => {
    const state = createClaudeTranslation();
    const seen: string[] = [];
    const sink: EmissionSink = { emit: (payload) => seen.push(payload.type) };
    translateFrameInto(
      state,
      { type: 'system', subtype: 'compact_boundary', uuid: 'c1', compact_metadata: { trigger: 'manual' } },
      sink,
    );
    expect(seen).toEqual(['item.started', 'item.completed']);
  });
});
