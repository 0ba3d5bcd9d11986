// Where a revert can take Claude Code's conversation (rewind-points.ts): the last top-level assistant
// message before each turn, the start for a new conversation's first turn, nothing Reins did not see.
import { describe, expect, test } from 'vitest';
import { RewindPoints } from './rewind-points.js';
import type { SDKMessage } from './wire.js';

const assistant = (uuid: string, parent: string | null = null) =>
  ({ type: 'assistant', uuid, parent_tool_use_id: parent, message: {}, session_id: 's' }) as unknown as SDKMessage;

describe('RewindPoints', () => {
  test('each turn goes back to the last top-level assistant message before it; the first to the start', () => {
    const points = new RewindPoints(true);
    points.turnBegan('t1', false);
    points.observe(assistant('a1'));
    points.observe(assistant('sub', 'toolu_1'));
    points.observe(assistant('a2'));
    points.turnBegan('t2', false);
    points.observe(assistant('a3'));
    expect(points.pointBefore('t1')).toEqual({ kind: 'start' });
    expect(points.pointBefore('t2')).toEqual({ kind: 'message', uuid: 'a2' });
  });

  test('a resumed conversation: no point until Reins saw a message', () => {
    const points = new RewindPoints(false);
    points.turnBegan('t1', false);
    points.observe(assistant('a1'));
    points.turnBegan('t2', false);
    expect(points.pointBefore('t1')).toBeUndefined();
    expect(points.pointBefore('t2')).toEqual({ kind: 'message', uuid: 'a1' });
  });

  test('a structured turn ends on no assistant message: the turn after it has no point', () => {
    const points = new RewindPoints(true);
    points.turnBegan('t1', true);
    points.observe(assistant('carrier'));
    points.turnBegan('t2', false);
    points.observe(assistant('a2'));
    points.turnBegan('t3', false);
    expect(points.pointBefore('t1')).toEqual({ kind: 'start' });
    expect(points.pointBefore('t2')).toBeUndefined();
    expect(points.pointBefore('t3')).toEqual({ kind: 'message', uuid: 'a2' });
  });

  test('after a rewind the reverted turns are forgotten and the next turn goes back to the point', () => {
    const points = new RewindPoints(true);
    points.turnBegan('t1', false);
    points.observe(assistant('a1'));
    points.turnBegan('t2', false);
    points.observe(assistant('a2'));
    points.rewound(['t2'], { kind: 'message', uuid: 'a1' });
    expect(points.pointBefore('t2')).toBeUndefined();
    points.turnBegan('t3', false);
    expect(points.pointBefore('t3')).toEqual({ kind: 'message', uuid: 'a1' });
  });
});
