// Real Claude Code, both pins (2.1.332 and the previous 2.1.197): spec.resume.fork starts a NEW conversation holding a copy of
// the source's history (--resume --fork-session, conversation.ts). The scripted model server sees the
// source's exchange in the fork's first request; the fork has its own native id; the source goes on
// untouched (resuming it afterwards does not see what was said in the fork). This test backs the
// `fork` capability (manifest.ts).
import { type HarnessPin, reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { createClaudeCodeHarness } from './adapter.js';

let rig: ClaudeRig | undefined;
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
});

/** The body of the model request the last turn made. */
function lastRequestBody(current: ClaudeRig): string {
  const last = current.server.requests.filter((entry) => entry.path === '/v1/messages').at(-1);
  return JSON.stringify(last?.body);
}

describe.each<HarnessPin>(['current', 'previous'])('claude-code real: fork (%s pin)', (pin) => {
  test('a fork holds the source history under a new id; the source does not see the fork', async () => {
    rig = await claudeRig('fork', { pin });
    rig.server.enqueue(reply().text('I will remember the word pelican.'));
    const first = await rig.open();
    const said = await first.session.send('Remember the word pelican');
    expect((await first.recorder.terminalOf(said)).outcome).toEqual({ status: 'completed' });
    const source = first.session.nativeSessionId as string;
    await first.recorder.close();

    // A new harness object: a new process, nothing shared in memory.
    const harness = createClaudeCodeHarness(rig.harnessOptions());
    rig.server.enqueue(reply().text('The word was pelican; now it is heron.'));
    const fork = await harness.createSession({ cwd: rig.workdir, resume: { nativeSessionId: source, fork: true } });
    const forkRecorder = rig.record(fork);
    const forkId = fork.nativeSessionId as string;
    expect(forkId).toMatch(/^[0-9a-f-]{36}$/);
    expect(forkId).not.toBe(source);
    const asked = await fork.send('Change the word to heron');
    expect((await forkRecorder.terminalOf(asked)).outcome).toEqual({ status: 'completed' });
    // The fork's first request holds the source's exchange, then the fork's own message.
    const forkBody = lastRequestBody(rig);
    expect(forkBody).toContain('Remember the word pelican');
    expect(forkBody).toContain('I will remember the word pelican.');
    expect(forkBody).toContain('Change the word to heron');
    // The id Reins reported is the one Claude Code ran the fork under (its system/init).
    expect(fork.nativeSessionId).toBe(forkId);
    const init = forkRecorder.events.find((event) => event.native?.method === 'system/init');
    expect((init?.native?.frame as { session_id?: unknown } | undefined)?.session_id).toBe(forkId);
    await forkRecorder.close();

    // Both conversations are on disk, each under its own id.
    const listed = (await harness.listSessions?.({ cwd: rig.workdir }))?.map((entry) => entry.nativeSessionId);
    expect(listed).toEqual(expect.arrayContaining([source, forkId]));

    // The source goes on as it was: its next request has its own exchange and nothing of the fork.
    rig.server.enqueue(reply().text('The word is pelican.'));
    const resumed = await harness.createSession({ cwd: rig.workdir, resume: { nativeSessionId: source } });
    const resumedRecorder = rig.record(resumed);
    expect(resumed.nativeSessionId).toBe(source);
    const again = await resumed.send('Which word?');
    expect((await resumedRecorder.terminalOf(again)).outcome).toEqual({ status: 'completed' });
    const sourceBody = lastRequestBody(rig);
    expect(sourceBody).toContain('Remember the word pelican');
    expect(sourceBody).not.toContain('heron');
    await resumedRecorder.close();
  });

  test('a fork of a conversation that does not exist fails with resume_failed, never a fresh start', async () => {
    rig = await claudeRig('fork-unknown', { pin });
    const unknown = '99999999-2222-4333-8444-666666666666';
    let session: Awaited<ReturnType<ClaudeRig['open']>> | undefined;
    let failure: unknown;
    try {
      session = await rig.open({ resume: { nativeSessionId: unknown, fork: true } });
    } catch (error) {
      failure = error;
    }
    if (session) {
      const turn = await session.session.send('hello?');
      const done = await session.recorder.terminalOf(turn);
      expect(done.outcome.status === 'failed' && done.outcome.error.code).toBe('resume_failed');
      await session.recorder.close();
    } else {
      expect((failure as { code?: string }).code).toBe('resume_failed');
    }
    expect(rig.server.requests.filter((entry) => entry.path === '/v1/messages')).toEqual([]);
  });
});
