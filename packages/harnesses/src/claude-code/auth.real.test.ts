// Real Claude Code (current pin), hermetic (loopback only): sign-in. Logged out (no API key in the
// environment), `claude auth status` says signed_out with the login methods; `claude auth login`
// prints the authorize URL Reins returns; cancel ends the login process and its group, none left.
import { readdir, readFile } from 'node:fs/promises';
import { ReinsError } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { createClaudeCodeHarness } from './adapter.js';

/** Processes on this machine running `<binary> auth login` (from /proc). */
async function loginProcesses(binary: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith(`${binary}\u0000auth\u0000login`)) pids.push(Number(entry));
  }
  return pids;
}

describe('claude-code real: sign-in', () => {
  let rig: ClaudeRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('claude auth login returns its URL; cancel leaves no process', async () => {
    rig = await claudeRig('auth-login');
    const { ANTHROPIC_API_KEY: _key, ...loggedOut } = rig.home.env;
    const harness = createClaudeCodeHarness(rig.harnessOptions({ baseEnv: loggedOut }));
    const auth = harness.auth;
    if (!auth?.login) throw new Error('the Claude Code harness has no sign-in');

    const before = await auth.status();
    expect(before.status).toBe('signed_out');
    expect(before.methods?.map((method) => method.id)).toEqual(['claudeai', 'console', 'sso']);
    await expect(auth.login({ method: 'carrier-pigeon' })).rejects.toSatisfy(
      (error: unknown) => ReinsError.isInstance(error) && error.code === 'invalid_input',
    );

    const ceremony = await auth.login({});
    expect(ceremony.url).toMatch(/^https:\/\/claude\.ai\/oauth\/authorize\?/);
    expect(ceremony.instructions).toMatch(/Open the URL/);
    expect(await loginProcesses(rig.binary.command)).toHaveLength(1);

    await ceremony.cancel();
    expect(await ceremony.completed).toMatchObject({ ok: false });
    expect(await loginProcesses(rig.binary.command)).toEqual([]);
    expect(liveProcessCount()).toBe(0);
    // Still signed out: nothing was signed in by starting and cancelling.
    expect((await auth.status()).status).toBe('signed_out');
  });
});
