// Process level: Session.diff and Session.revert on the Amp adapter against the fake `amp` (stream-json),
// wrapped so that a file changes on disk while the turn runs (runtime/checkpoints/edit-on-input.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReinsError } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editOnInput } from '../runtime/checkpoints/edit-on-input.js';
import { makeTestRepo, type TestRepo } from '../runtime/checkpoints/test-repo.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createAmpHarness } from './adapter.js';

const fake = fakeHarnessPath('amp');
const transcript = fileURLToPath(new URL('./fixtures/constructed-turns.0.0.1790142911-g7618fb.jsonl', import.meta.url));
let repo: TestRepo;
let wrapperDir: string;
const recorders: SessionRecorder[] = [];

beforeEach(() => {
  repo = makeTestRepo();
  wrapperDir = mkdtempSync(join(tmpdir(), 'reins-amp-wrapper-'));
});
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
  repo.remove();
  rmSync(wrapperDir, { recursive: true, force: true });
});

async function open(checkpoints: boolean) {
  const wrapper = await editOnInput(wrapperDir, {
    target: fake,
    match: '"type":"user"',
    file: `${repo.dir}/b.txt`,
    text: 'edited during the turn\n',
  });
  const harness = createAmpHarness({
    binaryPath: wrapper.binaryPath,
    baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: transcript, ...wrapper.env },
  });
  const session = await harness.createSession({ cwd: repo.dir, checkpoints });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

describe('amp checkpoints against the fake amp', () => {
  it("diff shows the turn's edit; revert puts the bytes back, files only, user's git state untouched", async () => {
    const userBefore = repo.userState();
    const { session, recorder } = await open(true);
    const sent = await session.send('Say hello.');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    await recorder.waitFor((event) => event.type === 'checkpoint' && event.turnId === sent.turnId, 'the checkpoint');
    const diff = await session.diff?.(sent.turnId);
    expect(diff?.changes).toEqual([
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
    const { session, recorder } = await open(false);
    const sent = await session.send('Say hello.');
    await recorder.terminalOf(sent);
    await expect(session.diff?.(sent.turnId)).rejects.toMatchObject({ code: 'unsupported_capability' });
    const refused = await session.revert?.(sent.turnId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReinsError);
    expect(refused).toMatchObject({ code: 'unsupported_capability', data: { reason: 'checkpoints_off' } });
    expect(repo.read('b.txt')).toBe('edited during the turn\n');
  });
});
