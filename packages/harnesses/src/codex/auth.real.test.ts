// Real Codex (pinned), hermetic (loopback only): sign-in. account/read says the scripted provider
// needs no OpenAI login; account/login/start {type: chatgpt} answers the authorize URL Reins returns
// (Codex listens on localhost for the redirect, no request leaves the machine); cancel ends the
// ceremony's app-server, none left; a login kind that would pass a credential through Reins is refused.
import { readdir, readFile } from 'node:fs/promises';
import { ReinsError } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';
import { liveProcessCount } from '../runtime/index.js';

/** Processes on this machine running `<binary> app-server` (from /proc). */
/** This test process's `codex app-server` children (the real tier runs other files' Codex beside it). */
async function appServers(binary: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.startsWith(binary) || !cmdline.includes('\u0000app-server')) continue;
    if (await descendsFromUs(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

async function descendsFromUs(pid: number): Promise<boolean> {
  for (let current = pid; current > 1; ) {
    const stat = await readFile(`/proc/${current}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === process.pid) return true;
    if (!parent) return false;
    current = parent;
  }
  return false;
}

describe('codex real: sign-in', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('account/login/start returns the auth URL; cancel leaves no process', async () => {
    rig = await codexRig('auth-login');
    const auth = rig.harness.auth;
    if (!auth?.login) throw new Error('the Codex harness has no sign-in');
    const binary = (await rig.harness.discover()) as { found: true; binary: { path: string } };

    expect(await auth.status()).toMatchObject({
      status: 'signed_in',
      message: expect.stringMatching(/needs no OpenAI/),
    });
    await expect(auth.login({ method: 'apiKey' })).rejects.toSatisfy(
      (error: unknown) => ReinsError.isInstance(error) && error.code === 'invalid_input',
    );

    const ceremony = await auth.login({});
    expect(ceremony.url).toMatch(/^https:\/\/auth\.openai\.com\/oauth\/authorize\?/);
    expect(ceremony.userCode).toBeUndefined();
    expect(await appServers(binary.binary.path)).toHaveLength(1);

    await ceremony.cancel();
    expect(await ceremony.completed).toEqual({ ok: false, message: 'The sign-in was cancelled.' });
    expect(await appServers(binary.binary.path)).toEqual([]);
    expect(liveProcessCount()).toBe(0);
  });
});
