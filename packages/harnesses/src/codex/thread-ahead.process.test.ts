// Process level: a warm Codex app-server opens a thread ahead (CodexHarnessOptions.warmThread) that a
// session whose spec fits takes instead of sending its own thread/start; one that does not fit says
// why in a notice. The fake app-server logs every request it gets (FAKE_CODEX_CLIENT_LOG), so the
// tests read which process received which thread/start. Real processes, no real CLI.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { type CodexHarnessOptions, createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = fileURLToPath(new URL('./fixtures/text-turn.0.169.0.jsonl', import.meta.url));

const folders: string[] = [];
const recorders: SessionRecorder[] = [];
const harnesses: Harness[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  await Promise.all(harnesses.splice(0).map((made) => made.warm?.(0)));
  expect(liveProcessCount()).toBe(0);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'reins-codex-ahead-'));
  folders.push(made);
  return made;
}

/** A harness on the fake whose requests land in its own log (its own launch settings, so its own pool). */
function setup(warmThread: CodexHarnessOptions['warmThread'], options: Partial<CodexHarnessOptions> = {}) {
  const log = join(folder(), 'client.jsonl');
  const made = createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, HOME: folder(), FAKE_CODEX_TRANSCRIPT: transcript, FAKE_CODEX_CLIENT_LOG: log },
    requestTimeoutMs: 5_000,
    ...(warmThread ? { warmThread } : {}),
    ...options,
  });
  harnesses.push(made);
  const requests = (method: string): Array<{ pid: number; params: Record<string, unknown> }> =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .filter((request) => request.method === method)
      : [];
  return { made, requests };
}

async function open(made: Harness, cwd: string) {
  const session = await made.createSession({ cwd });
  const recorder = new SessionRecorder(session, 5_000);
  recorders.push(recorder);
  return { session, recorder };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const misses = (events: ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'notice' && (event.data as { warmThread?: string } | undefined)?.warmThread === 'missed'
      ? [(event.data as { reason: string }).reason]
      : [],
  );

describe('codex threads opened ahead on warm app-servers (fake app-server)', () => {
  it('a session that fits takes the thread opened ahead (no thread/start of its own) and its turn runs; the shared process opens the next one', async () => {
    const cwd = folder();
    const { made, requests } = setup({ cwd, posture: 'bypass' });
    await made.warm?.(1);
    // Opened before any session: one thread/start, in the warm thread's cwd.
    const [ahead] = requests('thread/start');
    expect(requests('thread/start')).toHaveLength(1);
    expect(ahead?.params.cwd).toBe(cwd);

    const a = await open(made, cwd);
    expect(requests('thread/start')).toHaveLength(1);
    expect(a.session.nativeSessionId).toBeTruthy();
    const turn = await a.recorder.turn('Say hello.');
    expect(turn.outcome).toEqual({ status: 'completed' });
    // The turn went to the warm process, on the thread opened ahead.
    const [turnStart] = requests('turn/start');
    expect(turnStart?.pid).toBe(ahead?.pid);
    expect(turnStart?.params.threadId).toBe(a.session.nativeSessionId);
    expect(misses(a.recorder.events)).toEqual([]);

    // The shared app-server opens the next thread ahead a while after the take; the next session takes it.
    await until(() => requests('thread/start').length === 2, 'the next thread opened ahead');
    const b = await open(made, cwd);
    expect(requests('thread/start')).toHaveLength(2);
    expect(requests('thread/start').every((request) => request.pid === ahead?.pid)).toBe(true);
    expect(b.session.nativeSessionId).toBe(`${a.session.nativeSessionId}-2`);
    expect((await b.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(b.recorder.events)).toEqual([]);
    // No frame of one thread reached the other session.
    expect(JSON.stringify(a.recorder.events)).not.toContain(b.session.nativeSessionId);
  });

  it('a session that does not fit opens its own thread and says why; the thread ahead stays for one that fits', async () => {
    const cwd = folder();
    const other = folder();
    const { made, requests } = setup({ cwd });
    await made.warm?.(1);
    const elsewhere = await open(made, other);
    await elsewhere.recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(elsewhere.recorder.events)).toEqual(['cwd']);
    expect(requests('thread/start').map((request) => request.params.cwd)).toEqual([cwd, other]);
    const turn = await elsewhere.recorder.turn('Say hello.');
    expect(turn.outcome).toEqual({ status: 'completed' });

    const fitting = await open(made, cwd);
    expect(requests('thread/start')).toHaveLength(2);
    expect((await fitting.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(fitting.recorder.events)).toEqual([]);
    // The thread opened ahead (the first thread/start) is the fitting session's, not the other one's.
    expect(fitting.session.nativeSessionId).not.toBe(elsewhere.session.nativeSessionId);
    expect(JSON.stringify(elsewhere.recorder.events)).not.toContain(`"${fitting.session.nativeSessionId}"`);
  });

  it('a session that comes before the shared process opened its next thread ahead says it was taken', async () => {
    const cwd = folder();
    const { made, requests } = setup({ cwd });
    await made.warm?.(1);
    const first = await open(made, cwd);
    const second = await open(made, cwd);
    await second.recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(second.recorder.events)).toEqual(['taken']);
    expect(requests('thread/start').map((request) => request.params.cwd)).toEqual([cwd, cwd]);
    expect(second.session.nativeSessionId).not.toBe(first.session.nativeSessionId);
  });

  it('a session with another model or posture misses with that reason', async () => {
    const cwd = folder();
    const { made } = setup({ cwd, model: 'gpt-5.4' });
    await made.warm?.(1);
    const session = await made.createSession({ cwd, model: 'gpt-5.5' });
    const recorder = new SessionRecorder(session, 5_000);
    recorders.push(recorder);
    await recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(recorder.events)).toEqual(['model']);
    const posture = await made.createSession({ cwd, model: 'gpt-5.4', posture: 'ask' });
    const postureRecorder = new SessionRecorder(posture, 5_000);
    recorders.push(postureRecorder);
    await postureRecorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(postureRecorder.events)).toEqual(['posture']);
  });

  it('an AGENTS.md written after the thread was opened ahead makes the session open its own (Codex read the old one)', async () => {
    const cwd = folder();
    const { made, requests } = setup({ cwd });
    await made.warm?.(1);
    writeFileSync(join(cwd, 'AGENTS.md'), 'Answer in French.\n');
    const { session, recorder } = await open(made, cwd);
    await recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(recorder.events)).toEqual(['instructions_changed']);
    expect(requests('thread/start')).toHaveLength(2);
    // The stale thread is let go of; the session runs on its own.
    await until(() => requests('thread/unsubscribe').length === 1, 'the stale thread unsubscribed');
    expect(requests('thread/unsubscribe')[0]?.params.threadId).not.toBe(session.nativeSessionId);
    expect((await recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
  });

  it("'last-session': no thread before the first session; the next one in its cwd takes a thread opened with its settings, another cwd misses and moves it", async () => {
    const cwd = folder();
    const other = folder();
    const { made, requests } = setup('last-session');
    await made.warm?.(1);
    expect(requests('initialize')).toHaveLength(1);
    expect(requests('thread/start')).toHaveLength(0);

    // The first session opens its own thread; the shared process then opens one ahead with its settings.
    const first = await made.createSession({ cwd, posture: 'bypass', model: 'gpt-5.4' });
    const firstRecorder = new SessionRecorder(first, 5_000);
    recorders.push(firstRecorder);
    expect(requests('thread/start')).toHaveLength(1);
    await until(() => requests('thread/start').length === 2, 'the thread opened ahead for the next session');
    expect(requests('thread/start')[1]?.params).toMatchObject({ cwd, model: 'gpt-5.4', approvalPolicy: 'never' });

    // Same settings: taken, no thread/start of its own, no miss notice, and its turn runs on that thread.
    const second = await made.createSession({ cwd, posture: 'bypass', model: 'gpt-5.4' });
    const secondRecorder = new SessionRecorder(second, 5_000);
    recorders.push(secondRecorder);
    expect(requests('thread/start')).toHaveLength(2);
    expect((await secondRecorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(secondRecorder.events)).toEqual([]);
    expect(requests('turn/start').at(-1)?.params.threadId).toBe(second.nativeSessionId);
    expect(second.nativeSessionId).toBe(`${first.nativeSessionId}-2`);

    // The pool's replacement (another process) also opened its thread with the learned settings.
    const sharedPid = requests('thread/start')[0]?.pid;
    const onShared = () => requests('thread/start').filter((request) => request.pid === sharedPid);
    await until(
      () => requests('thread/start').some((request) => request.pid !== sharedPid),
      'the replacement warm process',
    );
    expect(requests('thread/start').find((request) => request.pid !== sharedPid)?.params.cwd).toBe(cwd);

    // Another cwd: it opens its own and says so; the next thread ahead follows it (the cwd one let go).
    await until(() => onShared().length === 3, 'the refill after the take');
    const elsewhere = await open(made, other);
    await elsewhere.recorder.waitFor((event) => event.type === 'notice', 'the warm-miss notice');
    expect(misses(elsewhere.recorder.events)).toEqual(['cwd']);
    expect(onShared()[3]?.params.cwd).toBe(other);
    await until(() => onShared().length === 5, 'the thread ahead moved to the other cwd');
    expect(onShared()[4]?.params.cwd).toBe(other);
    await until(() => requests('thread/unsubscribe').length === 1, 'the thread for the old cwd let go');
    const next = await open(made, other);
    expect(onShared()).toHaveLength(5);
    expect(misses(next.recorder.events)).toEqual([]);
    expect((await next.recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(requests('turn/start').at(-1)?.pid).toBe(sharedPid);
  });

  it('without warmThread a warm app-server opens no thread; a bad warmThread is refused at warm()', async () => {
    const { made, requests } = setup(undefined);
    await made.warm?.(1);
    expect(requests('initialize')).toHaveLength(1);
    expect(requests('thread/start')).toHaveLength(0);
    const { recorder } = await open(made, folder());
    expect((await recorder.turn('Say hello.')).outcome).toEqual({ status: 'completed' });
    expect(misses(recorder.events)).toEqual([]);

    const bad = setup({ cwd: join(folder(), 'missing') });
    await expect(bad.made.warm?.(1)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(bad.requests('initialize')).toHaveLength(0);
  });
});
