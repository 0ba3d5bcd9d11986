import { tmpdir } from 'node:os';
import type { RevertOptions, Session } from '@reins/core';
import { describe, expect, it } from 'vitest';
import {
  type CheckpointedSession,
  checkpointsOf,
  diffOn,
  diffSession,
  processTurnId,
  revertOn,
  revertSession,
} from './session-checkpoints.js';

/** A live process's session that records what it was asked, with the ids it was given. */
function liveSession(generation: number) {
  const asked: Array<[string, string | undefined, RevertOptions?]> = [];
  const session = {
    harness: 'codex',
    diff: async (turnId?: string) => {
      asked.push(['diff', turnId]);
      return { ...(turnId ? { turnId } : {}), changes: [] };
    },
    revert: async (turnId: string, options?: RevertOptions) => {
      asked.push(['revert', turnId, options]);
      return { turnId, files: ['a.txt'], conversation: 'reverted' as const };
    },
  } as unknown as Session;
  return { live: { session, generation }, asked };
}

describe('daemon checkpoints', () => {
  it("maps the daemon's turn ids to the live process's and back", async () => {
    expect(processTurnId('turn_2', 0)).toBe('turn_2');
    expect(processTurnId('r1.turn_2', 0)).toBeUndefined();
    expect(processTurnId('r2.turn_1', 2)).toBe('turn_1');
    expect(processTurnId('turn_1', 2)).toBeUndefined();
    const { live, asked } = liveSession(2);
    expect(await diffOn(live, 'ses_1', 'r2.turn_1')).toEqual({ turnId: 'r2.turn_1', changes: [] });
    expect(await revertOn(live, 'ses_1', 'r2.turn_1', { force: true })).toEqual({
      turnId: 'r2.turn_1',
      files: ['a.txt'],
      conversation: 'reverted',
    });
    expect(asked).toEqual([
      ['diff', 'turn_1'],
      ['revert', 'turn_1', { force: true }],
    ]);
  });

  it('refuses a turn of an earlier process, and a handle that serves no checkpoints, each with a sentence', async () => {
    const { live, asked } = liveSession(1);
    await expect(revertOn(live, 'ses_1', 'turn_3', {})).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/earlier harness process/),
    });
    expect(asked).toEqual([]);
    expect(() => checkpointsOf({}, 'session/diff')).toThrow(
      expect.objectContaining({
        code: 'unsupported_capability',
        message: expect.stringMatching(/does not serve session\/diff/),
      }),
    );
  });
});

describe('daemon checkpoints: which side answers', () => {
  /** A hosted session as the routing sees it; its stored log is never read unless the stored side answers. */
  function hosted(live: CheckpointedSession['live'], turnOpen = false) {
    const reads: number[] = [];
    const session: CheckpointedSession = {
      id: 'ses_1',
      harness: 'codex',
      cwd: tmpdir(), // no git work tree: the stored side answers with unsupported_capability
      live,
      turnOpen,
      read: async (afterSeq) => {
        reads.push(afterSeq);
        return [];
      },
    };
    return { session, reads };
  }

  it("the live process answers for its own turns (and a whole-session diff); the store's events for the others", async () => {
    const { live, asked } = liveSession(1);
    const { session, reads } = hosted(live);
    await diffSession(session, 'r1.turn_1');
    await diffSession(session, undefined);
    expect(asked).toEqual([
      ['diff', 'turn_1'],
      ['diff', undefined],
    ]);
    expect(reads).toEqual([]);
    await expect(diffSession(session, 'turn_1')).rejects.toMatchObject({ data: { reason: 'not_a_work_tree' } });
    expect(reads).toEqual([0]);
    expect(asked).toHaveLength(2);
  });

  it('a dormant session is answered from the store; a revert there waits for no open turn', async () => {
    const { session, reads } = hosted(undefined, true);
    await expect(diffSession(session, 'turn_1')).rejects.toMatchObject({ code: 'unsupported_capability' });
    await expect(revertSession(session, 'turn_1', {})).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'turn_running' },
    });
    expect(reads).toEqual([0]); // the refused revert read nothing
  });
});
