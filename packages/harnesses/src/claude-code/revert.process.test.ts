// Process level: Session.revert on Claude Code takes the conversation back, against the fake CLI whose
// FAKE_CLAUDE_CONVERSATIONS log says what each turn would send the model: after a revert the next turn's
// request no longer holds the reverted prompt (a fork at the message before it), a first turn's revert
// starts over, and a resumed session's earlier history (no message Reins saw) reverts the files only.
import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { makeTestRepo, type TestRepo } from '../runtime/checkpoints/test-repo.js';
import { liveProcessCount } from '../runtime/index.js';
import { createClaudeCodeHarness } from './adapter.js';

let repo: TestRepo;
let conversations: string;
const recorders: SessionRecorder[] = [];
beforeEach(async () => {
  await chmod(FAKE_CLAUDE, 0o755);
  repo = makeTestRepo();
  conversations = await mkdtemp(join(repo.dir, '.git', 'fake-conversations-'));
});
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
  repo.remove();
});

function harness() {
  return createClaudeCodeHarness({
    binaryPath: FAKE_CLAUDE,
    baseEnv: {
      PATH: process.env.PATH ?? '',
      HOME: repo.dir,
      IS_SANDBOX: '1',
      // Three recorded turns; each new process replays them from the first again.
      FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'queued-follow-up.2.1.197.jsonl'),
      FAKE_CLAUDE_CONVERSATIONS: conversations,
    },
    requestTimeoutMs: 10_000,
  });
}

async function open(resume?: { nativeSessionId: string }) {
  const session = await harness().createSession({ cwd: repo.dir, checkpoints: true, ...(resume ? { resume } : {}) });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  const turn = async (text: string) => {
    const sent = await session.send(text);
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    return sent.turnId;
  };
  return { session, recorder, turn };
}

/** What the fake would have sent its model on its latest turn. */
async function lastRequest(): Promise<{ sessionId: string; messages: string[] }> {
  const lines = (await readFile(join(conversations, 'requests.jsonl'), 'utf8')).trim().split('\n');
  return JSON.parse(lines.at(-1) as string);
}

describe('claude-code revert takes the conversation back (fake CLI)', () => {
  it('after reverting the second turn, the next request holds the first turn and not the second', async () => {
    const { session, turn } = await open();
    await turn('alpha-marker');
    const second = await turn('beta-marker');
    const before = session.nativeSessionId;
    expect((await lastRequest()).messages).toEqual(['alpha-marker', 'beta-marker']);
    const result = await session.revert?.(second);
    expect(result?.conversation).toBe('forked');
    // A fork under a new native id: the old transcript still holds the turn.
    expect(session.nativeSessionId).not.toBe(before);
    await turn('gamma-marker');
    expect(await lastRequest()).toEqual({
      sessionId: session.nativeSessionId,
      messages: ['alpha-marker', 'gamma-marker'],
    });
    // Reverting the first turn of the fork goes back to the message before it, in the source.
    const fourth = await turn('delta-marker');
    await session.revert?.(fourth);
    await turn('epsilon-marker');
    expect((await lastRequest()).messages).toEqual(['alpha-marker', 'gamma-marker', 'epsilon-marker']);
  });

  it('reverting the first turn starts the conversation over', async () => {
    const { session, turn } = await open();
    const first = await turn('alpha-marker');
    await turn('beta-marker');
    expect((await session.revert?.(first))?.conversation).toBe('forked');
    await turn('gamma-marker');
    expect((await lastRequest()).messages).toEqual(['gamma-marker']);
  });

  it('a resumed session reverts the files only: Reins saw no message before its first turn', async () => {
    const source = await open();
    await source.turn('alpha-marker');
    const nativeSessionId = source.session.nativeSessionId as string;
    await source.session.close();
    const { session, turn } = await open({ nativeSessionId });
    const resumedFirst = await turn('beta-marker');
    expect((await session.revert?.(resumedFirst))?.conversation).toBe('unchanged');
    expect(session.nativeSessionId).toBe(nativeSessionId);
    await turn('gamma-marker');
    expect((await lastRequest()).messages).toEqual(['alpha-marker', 'beta-marker', 'gamma-marker']);
  });
});
