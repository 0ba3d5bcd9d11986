// Real Codex (pinned), hermetic: the resume users meet most (issue 25) ends in resume_failed with Codex's
// own reason, never a fresh thread. A thread started and closed before its first turn has no rollout
// on disk, so Codex cannot resume it ("no rollout found for thread id"). Where the caller allowed it
// (resume.fallback 'new'), a new thread in its place that says so.
import { ReinsError } from '@reins/core';
import { reply, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';
import { withResumeFallback } from '../runtime/resume-fallback.js';

describe('codex real: resume failures', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('a thread saved before its first turn: resume_failed with "no rollout found", nothing sent to the model', async () => {
    rig = await codexRig('resume-before-first-turn');
    const first = await rig.open();
    const nativeSessionId = first.session.nativeSessionId as string;
    expect(nativeSessionId).toBeTruthy();
    await first.recorder.close();

    const error = await rig.open({ resume: { nativeSessionId } }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ReinsError.isInstance(error)).toBe(true);
    expect((error as ReinsError).code).toBe('resume_failed');
    expect((error as ReinsError).message).toContain(nativeSessionId);
    expect((error as ReinsError).message).toMatch(/no rollout found/i);
    expect(rig.server.requests).toHaveLength(0);
  });

  it('the same with resume.fallback "new": a new thread that says which fallback it used, and its turn runs', async () => {
    rig = await codexRig('resume-fallback-new');
    const first = await rig.open();
    const lost = first.session.nativeSessionId as string;
    await first.recorder.close();

    rig.server.enqueue(reply().text('Starting over.'));
    const harness = withResumeFallback(rig.harness);
    const session = await harness.createSession({
      cwd: rig.workdir,
      resume: { nativeSessionId: lost, fallback: 'new' },
    });
    const recorder = new SessionRecorder(session, 60_000);
    try {
      expect(session.nativeSessionId).toBeTruthy();
      expect(session.nativeSessionId).not.toBe(lost);
      const notice = await recorder.waitFor(
        (event) => event.type === 'notice' && (event.data as { fallback?: string })?.fallback === 'new',
        'the fallback notice',
      );
      expect(notice).toMatchObject({
        kind: 'warning',
        data: { fallback: 'new', nativeSessionId: lost, reason: expect.stringMatching(/no rollout found/i) },
      });
      const turn = await session.send('Hello again?');
      expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    } finally {
      await recorder.close();
    }
  });
});
