// The sink the session chassis hands a stream-json translation (runtime/chassis/held-emissions.ts): a
// frame's events are held, then committed in order, each slot emptied as its event is handed on. These
// cases hold it to that when the commit callback throws part-way, or emits into it again.
import type { EventPayload } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { createClaudeTranslation, translateFrameInto } from '../../claude-code/translate.js';
import { type CommitEmission, type FrameMeta, HeldEmissions } from '../../runtime/chassis/held-emissions.js';

const META: FrameMeta = { native: { source: 'test', frame: undefined }, at: 0 };
const note = (message: string): EventPayload => ({ type: 'notice', kind: 'info', message });

/** A commit that records what it is handed and throws at the `failAt`-th event. */
function recorder(failAt = -1) {
  const seen: Array<[string, string | undefined, boolean]> = [];
  const commit: CommitEmission = (payload, lane, background) => {
    if (seen.length === failAt) throw new Error('commit failed');
    seen.push([payload.type === 'notice' ? payload.message : payload.type, lane, background]);
  };
  return { seen, commit };
}

describe('held emissions', () => {
  it('commits in order with lanes and background flags, then holds nothing', () => {
    const held = new HeldEmissions();
    held.emit(note('a'));
    held.emit(note('b'), 'toolu_1', true);
    held.emit(note('c'), undefined, false);
    const first = recorder();
    held.commit(first.commit, META);
    expect(first.seen).toEqual([
      ['a', undefined, false],
      ['b', 'toolu_1', true],
      ['c', undefined, false],
    ]);
    const again = recorder();
    held.commit(again.commit, META);
    expect(again.seen).toEqual([]);
  });

  it('a commit that throws part-way leaves nothing held: the next frame commits only its own events', () => {
    const held = new HeldEmissions();
    held.emit(note('a'));
    held.emit(note('b'), 'toolu_1', true);
    held.emit(note('c'));
    const failing = recorder(1);
    expect(() => held.commit(failing.commit, META)).toThrow('commit failed');
    expect(failing.seen).toEqual([['a', undefined, false]]);
    held.emit(note('d'));
    const next = recorder();
    held.commit(next.commit, META);
    expect(next.seen).toEqual([['d', undefined, false]]);
  });

  it('an event emitted into it while it commits is not committed, and not kept for the next frame', () => {
    const held = new HeldEmissions();
    held.emit(note('a'));
    const seen: string[] = [];
    held.commit((payload) => {
      seen.push(payload.type);
      held.emit(note('during'));
    }, META);
    const next = recorder();
    held.commit(next.commit, META);
    expect(seen).toEqual(['notice']);
    expect(next.seen).toEqual([]);
  });

  it('holds a translated frame until it is committed', () => {
    const held = new HeldEmissions();
    const state = createClaudeTranslation();
    translateFrameInto(state, { type: 'system', subtype: 'init', session_id: 's1', model: 'm' }, held);
    const first = recorder();
    held.commit(first.commit, META);
    expect(first.seen).toEqual([['session.updated', undefined, false]]);
  });
});
