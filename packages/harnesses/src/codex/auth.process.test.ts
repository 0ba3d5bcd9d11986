// Process level: Codex sign-in against the fake app-server replaying the real 0.171.0 recording
// (fixtures/auth-login: account/read with the scripted provider, account/login/start {type: chatgpt}
// and account/login/cancel; recorded with REINS_RECORD_FIXTURES=1 from auth.real.test.ts).
import { fileURLToPath } from 'node:url';
import { ReinsError } from '@reins/core';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = fileURLToPath(new URL('./fixtures/auth-login.0.171.0.jsonl', import.meta.url));

function harness(knobs: Record<string, string> = {}, requestTimeoutMs = 5_000) {
  return createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript, ...knobs },
    requestTimeoutMs,
  });
}

describe('codex sign-in against the fake app-server', () => {
  afterEach(() => {
    expect(liveProcessCount()).toBe(0);
  });

  it('status, login with the recorded auth URL, cancel ends the ceremony and its app-server', async () => {
    const auth = harness().auth;
    if (!auth?.login) throw new Error('the Codex harness has no sign-in');
    expect(await auth.status()).toMatchObject({ status: 'signed_in' });
    const ceremony = await auth.login({ method: 'chatgpt' });
    expect(ceremony.url).toMatch(/^https:\/\/auth\.openai\.com\/oauth\/authorize\?/);
    expect(ceremony.instructions).toMatch(/Open the URL/);
    await ceremony.cancel();
    // The real Codex may send its own completed (success false) after the cancel; the ceremony says why it ended.
    expect(await ceremony.completed).toEqual({ ok: false, message: 'The sign-in was cancelled.' });
    await ceremony.cancel(); // idempotent
  });

  it('a login Codex never answers times out with no process left', async () => {
    const auth = harness({ FAKE_CODEX_HANG: 'account/login/start' }, 500).auth;
    await expect(auth?.login?.({})).rejects.toSatisfy(
      (error: unknown) => ReinsError.isInstance(error) && error.code === 'timeout',
    );
  });
});
