// Process level: Session.diff and Session.revert on an ACP session against the fake ACP agent, whose
// turns write files through the client's fs/write_text_file (Reins writes them in the cwd): the
// checkpoint shows the writes, revert puts the bytes back, files only, and the user's git state stays.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestRepo, type TestRepo } from '../runtime/checkpoints/test-repo.js';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';
import type { AcpSession } from './session.js';

const FAKE = fakeHarnessPath('acp');
const SCENARIO = {
  replies: [
    { match: 'rewrite', steps: [{ writeFile: { path: 'a.txt', content: 'written by the agent\n' } }] },
    { match: 'add', steps: [{ writeFile: { path: 'sub/new.txt', content: 'new\n' } }] },
  ],
};

let repo: TestRepo;
const opened: SessionRecorder[] = [];
beforeEach(() => {
  repo = makeTestRepo();
});
afterEach(async () => {
  await SessionRecorder.closeAll(opened.splice(0));
  expect(liveProcessCount()).toBe(0);
  repo.remove();
});

async function open(checkpoints: boolean) {
  const harness = createAcpHarness({
    command: FAKE,
    baseEnv: { PATH: process.env.PATH ?? '', FAKE_ACP_SCENARIO: JSON.stringify(SCENARIO) },
    requestTimeoutMs: 5000,
  });
  const session = (await harness.createSession({ cwd: repo.dir, checkpoints })) as AcpSession;
  const recorder = new SessionRecorder(session, 20_000);
  opened.push(recorder);
  return { session, recorder };
}

const checkpointOf = (turnId: string) => (event: ReinsEvent) => event.type === 'checkpoint' && event.turnId === turnId;

describe('acp checkpoints against the fake agent', () => {
  it("the agent's writes show in each turn's checkpoint; revert puts the bytes back, files only", async () => {
    const user = repo.userState();
    const { session, recorder } = await open(true);
    const first = await session.send('rewrite a.txt');
    const checkpoint = await recorder.waitFor(checkpointOf(first.turnId), 'the first checkpoint');
    if (checkpoint.type !== 'checkpoint') throw new Error('not a checkpoint');
    expect(checkpoint.changes).toEqual([
      expect.objectContaining({
        path: 'a.txt',
        kind: 'modified',
        diff: expect.stringContaining('+written by the agent'),
      }),
    ]);
    expect(repo.read('a.txt')).toBe('written by the agent\n');
    const second = await session.send('add a file');
    await recorder.waitFor(checkpointOf(second.turnId), 'the second checkpoint');
    expect((await session.diff(second.turnId)).changes.map((change) => `${change.kind} ${change.path}`)).toEqual([
      'added sub/new.txt',
    ]);

    expect(await session.revert(first.turnId)).toEqual({
      turnId: first.turnId,
      files: ['a.txt', 'sub/new.txt'],
      conversation: 'unchanged',
    });
    expect(repo.read('a.txt')).toBe('alpha\n');
    expect(existsSync(join(repo.dir, 'sub'))).toBe(false);
    const after = repo.userState();
    expect([after.head, after.index, after.stash, after.branches]).toEqual([
      user.head,
      user.index,
      user.stash,
      user.branches,
    ]);
    expect(repo.git('for-each-ref', 'refs/reins').trim()).toBe('');
    await expect(session.diff(first.turnId)).rejects.toMatchObject({ data: { reason: 'no_checkpoint' } });
  });

  it('with checkpoints off, diff and revert say so with unsupported_capability', async () => {
    const { session } = await open(false);
    await expect(session.diff()).rejects.toMatchObject({
      code: 'unsupported_capability',
      data: { reason: 'checkpoints_off' },
    });
    await expect(session.revert('turn_1')).rejects.toThrow(/checkpoints: true/);
  });
});
