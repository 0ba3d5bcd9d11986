// Real Claude Code, current pin (seen first on 2.1.197, the same on 2.1.332): resume in a new process keeps the same conversation (the server sees
// the earlier exchange and the native id stays); an unknown id is resume_failed, never a fresh start.
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { createClaudeCodeHarness } from './adapter.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

describe('claude-code real: resume', () => {
  test('resume in a new process: the server sees prior history', async () => {
    rig = await claudeRig('resume');
    rig.server.enqueue(reply().text('I will remember the word pelican.'));
    const first = await rig.open();
    const turn = await first.session.send('Remember the word pelican');
    expect((await first.recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    const nativeSessionId = first.session.nativeSessionId as string;
    await first.recorder.close();

    // A new harness object: a new process, nothing shared in memory.
    const harness = createClaudeCodeHarness(rig.harnessOptions());
    const listed = await harness.listSessions?.({ cwd: rig.workdir });
    expect(listed?.map((entry) => entry.nativeSessionId)).toContain(nativeSessionId);
    const history = await harness.history?.(nativeSessionId, { cwd: rig.workdir });
    expect(history?.map((item) => item.kind)).toEqual(['user_message', 'agent_message']);

    rig.server.enqueue(reply().text('The word was pelican.'));
    const resumed = await harness.createSession({ cwd: rig.workdir, resume: { nativeSessionId } });
    const recorder = rig.record(resumed);
    const next = await resumed.send('Which word?');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    expect(resumed.nativeSessionId).toBe(nativeSessionId);
    const last = rig.server.requests.filter((entry) => entry.path === '/v1/messages').at(-1);
    const body = JSON.stringify(last?.body);
    expect(body).toContain('Remember the word pelican');
    expect(body).toContain('I will remember the word pelican.');
    await recorder.close();
  });

  test('resume of an unknown conversation fails with resume_failed', async () => {
    rig = await claudeRig('resume-unknown');
    const unknown = '99999999-2222-4333-8444-555555555555';
    let session: Awaited<ReturnType<ClaudeRig['open']>> | undefined;
    let failure: unknown;
    try {
      session = await rig.open({ resume: { nativeSessionId: unknown } });
    } catch (error) {
      failure = error;
    }
    if (session) {
      const turn = await session.session.send('hello?');
      const done = await session.recorder.terminalOf(turn);
      expect(done.outcome.status).toBe('failed');
      expect(done.outcome.status === 'failed' && done.outcome.error.code).toBe('resume_failed');
      await session.recorder.close();
    } else {
      expect((failure as { code?: string }).code).toBe('resume_failed');
    }
    // Never a silent fresh start: nothing reached the model.
    expect(rig.server.requests.filter((entry) => entry.path === '/v1/messages')).toEqual([]);
  });
});
