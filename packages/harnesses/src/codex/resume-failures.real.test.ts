// Real Codex (pinned), hermetic: the resume users meet most (issue 25) ends in resume_failed with Codex's
// own reason, never a fresh thread. A thread started and closed before its first turn has no rollout
// on disk, so Codex cannot resume it ("no rollout found for thread id").
import { ReinsError } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from './test-helpers.js';

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
});
