// Real Claude Code, hermetic: warm starts on the Agent SDK's prewarm()/claim() (warm.ts). On the
// current pin (2.1.332) a session claims a parked spare: it runs under the spare's --session-id from
// the start, its first model request holds only its own message (nothing of an earlier session on
// another spare), the claim carries model, effort and the appended system prompt, a claim the folder's
// project settings refuse starts the session cold instead, and closing or warm(0) leaves no process.
// The previous pin (2.1.197) has no --await-claim: warm() is unsupported_capability, sessions start cold.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Harness } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';
import { liveProcessCount, mergeEnv } from '../runtime/index.js';
import { claudeSpares, type HostLaunch } from './warm.js';

let rig: ClaudeRig | undefined;
let warmed: Harness | undefined;
afterEach(async () => {
  await warmed?.warm?.(0);
  warmed = undefined;
  await rig?.cleanup();
  rig = undefined;
});

/** Live processes whose working folder and command line mention `marker`, as `cwd command line`. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const line = `${cwd} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ')}`;
      if (line.includes(marker)) found.push(line);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Spares parked for this rig's harness (the pool's own count). */
async function hostOf(current: ClaudeRig): Promise<HostLaunch> {
  const found = await current.harness.discover();
  if (!found.found) throw new Error('the pinned Claude Code is not found');
  return { binary: found.binary, env: mergeEnv(current.home.env, undefined), options: current.harnessOptions() };
}

function messageRequests(current: ClaudeRig) {
  return current.server.requests.filter((entry) => entry.path === '/v1/messages');
}

describe('claude-code real: warm starts (current pin)', () => {
  test('a session claims a spare: the spare id from the start, only its own message, a new id for the next', async () => {
    rig = await claudeRig('warm-claim');
    warmed = rig.harness;
    const host = await hostOf(rig);
    await rig.harness.warm?.(1);
    expect(claudeSpares.readyCount(host)).toBe(1);
    const parked = processesWith('--await-claim').filter((line) => line.includes(rig?.tempHome.dir as string));
    expect(parked).toHaveLength(1);

    rig.server.enqueue(reply().text('Warm hello one.'));
    const first = await rig.open();
    const firstId = first.session.nativeSessionId as string;
    // The session runs on the spare: the parked process was started under the session's native id.
    expect(parked[0]).toContain(`--session-id=${firstId}`);
    const one = await first.session.send('Remember the word lantern');
    expect((await first.recorder.terminalOf(one)).outcome).toEqual({ status: 'completed' });
    expect(first.recorder.ofType('item.delta').length).toBeGreaterThan(0);
    const init = first.recorder.events.find((event) => event.native?.method === 'system/init');
    expect((init?.native?.frame as { session_id?: unknown } | undefined)?.session_id).toBe(firstId);
    // One model request: the claim itself asked the model nothing.
    expect(messageRequests(rig)).toHaveLength(1);

    // The pool started a replacement; the next session takes it in another folder.
    await expect.poll(() => claudeSpares.readyCount(host), { timeout: 30_000 }).toBe(1);
    const other = join(rig.tempHome.dir, 'other');
    await mkdir(other);
    rig.server.enqueue(reply().text('Warm hello two.'));
    const second = await rig.open({ cwd: other });
    const secondId = second.session.nativeSessionId as string;
    expect(secondId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondId).not.toBe(firstId);
    const two = await second.session.send('What is two plus two');
    expect((await second.recorder.terminalOf(two)).outcome).toEqual({ status: 'completed' });
    const body = JSON.stringify(messageRequests(rig).at(-1)?.body);
    expect(body).toContain('What is two plus two');
    expect(body).not.toContain('lantern');
    expect(body).not.toContain('Warm hello one.');
    expect(body).toContain(other);
    await first.recorder.close();
    await second.recorder.close();
  });

  test('the claim carries model, effort and the appended system prompt', async () => {
    rig = await claudeRig('warm-settings');
    warmed = rig.harness;
    await rig.harness.warm?.(1);
    const parked = processesWith('--await-claim').filter((line) => line.includes(rig?.tempHome.dir as string));
    rig.server.enqueue(reply().text('Settled.'));
    const { session, recorder } = await rig.open({
      model: 'fake-model',
      effort: 'low',
      systemPrompt: { append: 'Always mention the heron.' },
    });
    expect(parked[0]).toContain(`--session-id=${session.nativeSessionId}`);
    const said = await session.send('Go');
    expect((await recorder.terminalOf(said)).outcome).toEqual({ status: 'completed' });
    const [request] = messageRequests(rig);
    const body = request?.body as { model?: string; output_config?: { effort?: string }; system?: unknown };
    expect(body.model).toBe('fake-model');
    expect(body.output_config?.effort).toBe('low');
    expect(JSON.stringify(body.system)).toContain('Always mention the heron.');
    await recorder.close();
  });

  test('both postures claim a spare: ask surfaces the approval, bypass runs the tool unasked', async () => {
    rig = await claudeRig('warm-postures');
    warmed = rig.harness;
    await rig.harness.warm?.(1);
    const parked = processesWith('--await-claim').filter((line) => line.includes(rig?.tempHome.dir as string));
    const asking = join(rig.workdir, 'asked.txt');
    rig.server.enqueue(reply().writeFile(asking, 'asked\n'));
    rig.server.enqueue(reply().text('Written after asking.'));
    const ask = await rig.open({ posture: 'ask' });
    expect(parked[0]).toContain(`--session-id=${ask.session.nativeSessionId}`);
    const turn = await ask.session.send('Write asked.txt');
    const asked = await ask.recorder.waitFor((event) => event.type === 'permission.requested', 'permission.requested');
    if (asked.type !== 'permission.requested') throw new Error('unreachable');
    expect(asked.tool).toEqual({ kind: 'file_change', name: 'Write' });
    await ask.session.respondToPermission(asked.requestId, { behavior: 'allow' });
    expect((await ask.recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    expect(await readFile(asking, 'utf8')).toBe('asked\n');
    await ask.recorder.close();

    // The replacement spare serves a bypass session: the same kind of tool runs without a request.
    const host = await hostOf(rig);
    await expect.poll(() => claudeSpares.readyCount(host), { timeout: 30_000 }).toBe(1);
    const bypassing = join(rig.workdir, 'bypassed.txt');
    rig.server.enqueue(reply().writeFile(bypassing, 'bypassed\n'));
    rig.server.enqueue(reply().text('Written without asking.'));
    const bypass = await rig.open();
    expect(claudeSpares.readyCount(host)).toBe(0);
    const ran = await bypass.session.send('Write bypassed.txt');
    expect((await bypass.recorder.terminalOf(ran)).outcome).toEqual({ status: 'completed' });
    expect(await readFile(bypassing, 'utf8')).toBe('bypassed\n');
    expect(bypass.recorder.ofType('permission.requested')).toEqual([]);
    await bypass.recorder.close();
  });

  test('a claim the folder refuses starts the session cold instead, never a failed session', async () => {
    rig = await claudeRig('warm-refused');
    warmed = rig.harness;
    await rig.harness.warm?.(1);
    const parked = processesWith('--await-claim').filter((line) => line.includes(rig?.tempHome.dir as string));
    expect(parked).toHaveLength(1);
    // Project settings that set `model` make a spare refuse the claim (SDK 0.3.333, ClaimOptions).
    await mkdir(join(rig.workdir, '.claude'));
    await writeFile(join(rig.workdir, '.claude', 'settings.json'), JSON.stringify({ model: 'fake-model' }));
    rig.server.enqueue(reply().text('Cold but fine.'));
    const { session, recorder } = await rig.open();
    const said = await session.send('Hello there');
    expect((await recorder.terminalOf(said)).outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('item.completed').map((event) => event.item)).toContainEqual(
      expect.objectContaining({ kind: 'agent_message', text: 'Cold but fine.' }),
    );
    // The process that answered was a cold one (no --await-claim) under the id the session reported.
    const id = session.nativeSessionId as string;
    expect(parked[0]).toContain(`--session-id=${id}`); // the spare was taken (and refused)
    const running = processesWith(id);
    expect(running.some((line) => !line.includes('--await-claim') && line.includes(`--session-id`))).toBe(true);
    expect(messageRequests(rig)).toHaveLength(1);
    await recorder.close();
  });

  test('no orphan: a closed warm session and warm(0) leave no process behind', async () => {
    rig = await claudeRig('warm-reap');
    const before = liveProcessCount();
    await rig.harness.warm?.(2);
    expect(liveProcessCount()).toBe(before + 2);
    rig.server.enqueue(reply().text('Reaped.'));
    const { session, recorder } = await rig.open();
    const said = await session.send('Hi');
    await recorder.terminalOf(said);
    await recorder.close();
    await rig.harness.warm?.(0);
    // Replacements still starting are stopped too; nothing of this rig's Claude Code is left.
    await expect.poll(() => liveProcessCount(), { timeout: 15_000 }).toBe(before);
    await expect
      .poll(() => processesWith(rig?.tempHome.dir as string).filter((line) => line.includes('claude')), {
        timeout: 15_000,
      })
      .toEqual([]);
  });
});

describe('claude-code real: warm starts (previous pin)', () => {
  test('2.1.197 has no --await-claim: warm() is unsupported_capability and sessions start cold', async () => {
    rig = await claudeRig('warm-previous', { pin: 'previous' });
    warmed = rig.harness;
    await expect(rig.harness.warm?.(1)).rejects.toMatchObject({ code: 'unsupported_capability' });
    rig.server.enqueue(reply().text('Cold on the old pin.'));
    const { session, recorder } = await rig.open();
    const said = await session.send('Hello');
    expect((await recorder.terminalOf(said)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });
});
