// Process level: Session.diff and Session.revert on the OpenClaw adapter against the testkit's fake
// gateway. The file is edited by the test while the turn runs (a "stall" turn waits for the interrupt).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestRepo, type TestRepo } from '../runtime/checkpoints/test-repo.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createOpenClawHarness } from './adapter.js';

const fake = fakeHarnessPath('openclaw');
let repo: TestRepo;
const recorders: SessionRecorder[] = [];

beforeEach(() => {
  repo = makeTestRepo();
});
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
  repo.remove();
});

async function open(checkpoints: boolean) {
  const harness = createOpenClawHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_OPENCLAW_START_MS: '50' },
    requestTimeoutMs: 5_000,
    connectTimeoutMs: 15_000,
  });
  const session = await harness.createSession({ cwd: repo.dir, checkpoints });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

describe('openclaw checkpoints against the fake gateway', () => {
  it('diff shows an edit made during the turn; revert puts the bytes back, files only', async () => {
    const userBefore = repo.userState();
    const { session, recorder } = await open(true);
    const sent = await session.send('stall');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === sent.turnId, 'a delta');
    writeFileSync(join(repo.dir, 'b.txt'), 'edited during the turn\n');
    await session.interrupt();
    await recorder.terminalOf(sent);
    await recorder.waitFor((event) => event.type === 'checkpoint' && event.turnId === sent.turnId, 'the checkpoint');
    expect((await session.diff?.(sent.turnId))?.changes).toEqual([
      expect.objectContaining({
        path: 'b.txt',
        kind: 'modified',
        diff: expect.stringContaining('+edited during the turn'),
      }),
    ]);
    expect(await session.revert?.(sent.turnId)).toEqual({
      turnId: sent.turnId,
      files: ['b.txt'],
      conversation: 'unchanged',
    });
    expect(repo.read('b.txt')).toBe('bravo\n');
    expect(repo.userState()).toEqual(userBefore);
  });

  it('without checkpoints, diff and revert say so with unsupported_capability', async () => {
    const { session } = await open(false);
    await expect(session.diff?.()).rejects.toMatchObject({ code: 'unsupported_capability' });
    await expect(session.revert?.('turn-1')).rejects.toMatchObject({
      code: 'unsupported_capability',
      data: { reason: 'checkpoints_off' },
    });
  });
});
