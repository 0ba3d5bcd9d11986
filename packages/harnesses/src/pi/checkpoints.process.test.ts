// Process level: Session.diff and Session.revert on the Pi adapter against the fake `pi --mode rpc`,
// wrapped so that a file changes on disk while the turn runs (runtime/checkpoints/edit-on-input.ts). The
// revert fixture is the real Pi's get_fork_messages / fork / get_state answers (pi.real.test.ts recorded it).
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
import { createPiHarness } from './adapter.js';

const fake = fakeHarnessPath('pi');
const transcript = fileURLToPath(new URL('./fixtures/text.0.73.1.jsonl', import.meta.url));
const revertTranscript = fileURLToPath(new URL('./fixtures/revert.0.73.1.jsonl', import.meta.url));
let repo: TestRepo;
let wrapperDir: string;
const recorders: SessionRecorder[] = [];

beforeEach(() => {
  repo = makeTestRepo();
  wrapperDir = mkdtempSync(join(tmpdir(), 'reins-pi-wrapper-'));
});
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
  repo.remove();
  rmSync(wrapperDir, { recursive: true, force: true });
});

async function open(checkpoints: boolean, fixture = transcript, sentToPi: string[] = []) {
  const wrapper = await editOnInput(wrapperDir, {
    target: fake,
    match: '"type":"prompt"',
    file: `${repo.dir}/b.txt`,
    text: 'edited during the turn\n',
  });
  const harness = createPiHarness({
    binaryPath: wrapper.binaryPath,
    baseEnv: { PATH: process.env.PATH, FAKE_PI_TRANSCRIPT: fixture, ...wrapper.env },
    tap: (direction, line) => {
      if (direction === 'in') sentToPi.push(line);
    },
  });
  const session = await harness.createSession({ cwd: repo.dir, checkpoints });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

describe('pi checkpoints against the fake pi', () => {
  it("diff shows the turn's edit; revert puts the bytes back, files only, user's git state untouched", async () => {
    const userBefore = repo.userState();
    const { session, recorder } = await open(true);
    const sent = await session.send('Say hello please.');
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

  it("revert forks Pi's conversation at the turn's message and follows the new session file", async () => {
    const sentToPi: string[] = [];
    const { session, recorder } = await open(true, revertTranscript, sentToPi);
    const original = session.nativeSessionId;
    const sent = await session.send('Change b.txt with a command.');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    await recorder.waitFor((event) => event.type === 'checkpoint' && event.turnId === sent.turnId, 'the checkpoint');
    expect(await session.revert?.(sent.turnId)).toEqual({
      turnId: sent.turnId,
      files: ['b.txt'],
      conversation: 'forked',
    });
    expect(repo.read('b.txt')).toBe('bravo\n');
    // The entry Pi named for that prompt (recorded), and the file get_state named after the fork.
    expect(sentToPi.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ type: 'fork', entryId: '3fd20db4' }),
    );
    expect(session.nativeSessionId).toMatch(/_01a235ad-35a3-77fd-97a1-dae7d4ed52ad\.jsonl$/);
    expect(session.nativeSessionId).not.toBe(original);
    expect(recorder.ofType('session.updated').at(-1)?.nativeSessionId).toBe(session.nativeSessionId);
  });

  it('a turn whose prompt Pi does not list reverts the files only, and says unchanged', async () => {
    const sentToPi: string[] = [];
    const { session, recorder } = await open(true, revertTranscript, sentToPi);
    const sent = await session.send('A prompt Pi stored under other text.');
    await recorder.terminalOf(sent);
    await recorder.waitFor((event) => event.type === 'checkpoint' && event.turnId === sent.turnId, 'the checkpoint');
    expect((await session.revert?.(sent.turnId))?.conversation).toBe('unchanged');
    expect(repo.read('b.txt')).toBe('bravo\n');
    expect(sentToPi.some((line) => JSON.parse(line).type === 'fork')).toBe(false);
  });

  it('without checkpoints, diff and revert say so with unsupported_capability', async () => {
    const { session, recorder } = await open(false);
    const sent = await session.send('Say hello please.');
    await recorder.terminalOf(sent);
    await expect(session.diff?.(sent.turnId)).rejects.toMatchObject({ code: 'unsupported_capability' });
    const refused = await session.revert?.(sent.turnId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReinsError);
    expect(refused).toMatchObject({ code: 'unsupported_capability', data: { reason: 'checkpoints_off' } });
    expect(repo.read('b.txt')).toBe('edited during the turn\n');
  });
});
