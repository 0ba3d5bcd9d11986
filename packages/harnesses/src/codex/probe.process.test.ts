// Process level: the Harness's one-off calls (models() here: the catalog probe a bridge's initialize
// starts) on the fake app-server, counting every start with a launcher script. A one-off call uses
// the shared or a ready warm app-server of the same launch settings, or starts the shared one so a
// session arriving meanwhile takes it; it creates no thread, and what it started ends with it.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { type CodexHarnessOptions, createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = fileURLToPath(new URL('./fixtures/text-turn.0.169.0.jsonl', import.meta.url));
// The recorded transcripts hold no model/list: the fake answers it with this error, which is still
// the app-server's answer (the call reached a process and came back).
const UNRECORDED = /nothing recorded for model\/list/;

let home: string;
let log: string;
let launcher: string;
const recorders: SessionRecorder[] = [];
const harnesses: Harness[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-codex-probe-'));
  log = join(home, 'starts.log');
  launcher = join(home, 'codex');
  await writeFile(launcher, `#!/bin/sh\necho "$*" >> '${log}'\nexec "${process.execPath}" '${fake}' "$@"\n`);
  await chmod(launcher, 0o755);
});

afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  await Promise.all(harnesses.splice(0).map((made) => made.warm?.(0)));
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

function harness(options: Partial<CodexHarnessOptions> = {}): Harness {
  const made = createCodexHarness({
    binaryPath: launcher,
    // A home of its own per test: the launch key differs, so no test meets another's app-server.
    baseEnv: { PATH: process.env.PATH, HOME: home, FAKE_CODEX_TRANSCRIPT: transcript },
    requestTimeoutMs: 5_000,
    ...options,
  });
  harnesses.push(made);
  return made;
}

async function open(made: Harness) {
  const session = await made.createSession({ cwd: process.cwd() });
  const recorder = new SessionRecorder(session, 5_000);
  recorders.push(recorder);
  return { session, recorder };
}

async function starts(): Promise<number> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line.startsWith('app-server')).length;
}

async function completesATurn({ session, recorder }: Awaited<ReturnType<typeof open>>): Promise<void> {
  const sent = await session.send('Say hello.');
  expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
}

describe('codex one-off calls on the shared app-server (fake app-server)', () => {
  it('a catalog call with no app-server running starts the shared one; a session arriving meanwhile takes it', async () => {
    const made = harness();
    const catalog = expect(made.models?.()).rejects.toThrow(UNRECORDED);
    const first = await open(made);
    await catalog;
    expect(await starts()).toBe(1);
    expect(liveProcessCount()).toBe(1);
    // The probe made no thread: the session's thread is the process's first (the fake's lane 0).
    await completesATurn(first);
    await first.recorder.close();
    expect(liveProcessCount()).toBe(0);
  });

  it('a catalog call while a session runs uses its process and leaves it alone', async () => {
    const made = harness();
    const first = await open(made);
    await expect(made.models?.()).rejects.toThrow(UNRECORDED);
    expect(await starts()).toBe(1);
    // The session is still the process's sole one: it runs its turn, and nothing stray reached it.
    await completesATurn(first);
    expect(first.recorder.events.some((event) => event.type === 'session.closed')).toBe(false);
    expect(liveProcessCount()).toBe(1);
  });

  it('a catalog call alone ends the app-server it started (no orphan); the next one starts another', async () => {
    const made = harness();
    await expect(made.models?.()).rejects.toThrow(UNRECORDED);
    expect(liveProcessCount()).toBe(0);
    await expect(made.models?.()).rejects.toThrow(UNRECORDED);
    expect(liveProcessCount()).toBe(0);
    expect(await starts()).toBe(2);
  });

  it('a ready warm app-server is borrowed, not taken: no replacement starts, and a session still takes it', async () => {
    const made = harness();
    await made.warm?.(1);
    expect(await starts()).toBe(1);
    await expect(made.models?.()).rejects.toThrow(UNRECORDED);
    expect(await starts()).toBe(1);
    expect(liveProcessCount()).toBe(1);
    const first = await open(made);
    await completesATurn(first);
    // The session took the warm one (its replacement may have started since, nothing else did).
    expect(await starts()).toBeLessThanOrEqual(2);
  });

  it('shareProcess: false keeps a short-lived app-server per call, ended with it', async () => {
    const made = harness({ shareProcess: false });
    const first = await open(made);
    await expect(made.models?.()).rejects.toThrow(UNRECORDED);
    expect(await starts()).toBe(2);
    expect(liveProcessCount()).toBe(1);
    await completesATurn(first);
  });
});
