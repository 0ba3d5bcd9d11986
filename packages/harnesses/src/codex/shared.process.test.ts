// Process level: several Codex sessions on one app-server process (the fake app-server replaying
// Codex 0.169.0 frames, one lane per thread), warm processes, and a process per session when
// sharing is off. Real processes, no real CLI.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness, Session } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { type CodexHarnessOptions, createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.0.169.0.jsonl`, import.meta.url));

function harness(knobs: Record<string, string> = {}, options: Partial<CodexHarnessOptions> = {}): Harness {
  return createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript('text-turn'), ...knobs },
    requestTimeoutMs: 5_000,
    interruptGraceMs: 1_000,
    ...options,
  });
}

const recorders: SessionRecorder[] = [];
const harnesses: Harness[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  await Promise.all(harnesses.splice(0).map((made) => made.warm?.(0)));
  expect(liveProcessCount()).toBe(0);
});

async function open(made: Harness) {
  const session: Session = await made.createSession({ cwd: process.cwd() });
  const recorder = new SessionRecorder(session, 5_000);
  recorders.push(recorder);
  return { session, recorder };
}

const text = (recorder: SessionRecorder, turnId: string) =>
  recorder
    .turnEvents(turnId)
    .flatMap((event) => (event.type === 'item.delta' ? [event.text] : []))
    .join('');

describe('codex sessions sharing one app-server (fake app-server)', () => {
  it('two sessions run on one process, each on its own thread with its own reply; one closing leaves the other', async () => {
    const made = harness();
    const a = await open(made);
    const b = await open(made);
    expect(liveProcessCount()).toBe(1);
    expect(a.session.nativeSessionId).toBeTruthy();
    expect(b.session.nativeSessionId).toBe(`${a.session.nativeSessionId}-2`);
    const [sentA, sentB] = await Promise.all([a.session.send('Say hello.'), b.session.send('Say hello.')]);
    expect((await a.recorder.terminalOf(sentA)).outcome).toEqual({ status: 'completed' });
    expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
    expect(text(a.recorder, sentA.turnId)).toBe('Hello from the scripted model.');
    expect(text(b.recorder, sentB.turnId)).toBe('Hello from the scripted model.');
    // No frame of one thread reached the other session.
    expect(JSON.stringify(a.recorder.events)).not.toContain(b.session.nativeSessionId);
    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    expect(b.recorder.events.some((event) => event.type === 'session.closed')).toBe(false);
    await b.recorder.close();
    expect(liveProcessCount()).toBe(0);
  });

  it('a crash of the shared process fails both sessions, each with its own terminal; the next session respawns', async () => {
    const made = harness({ FAKE_CODEX_CRASH_AFTER: 'item/agentMessage/delta', FAKE_CODEX_STDERR: '1' });
    const a = await open(made);
    const b = await open(made);
    const [sentA, sentB] = await Promise.all([a.session.send('Say hello.'), b.session.send('Say hello.')]);
    for (const [{ recorder }, sent] of [
      [a, sentA],
      [b, sentB],
    ] as const) {
      const terminal = await recorder.terminalOf(sent);
      expect(terminal.outcome).toMatchObject({ status: 'failed', error: { code: 'process_exited' } });
      // The process's stderr belongs to no session: each error carries it.
      if (terminal.outcome.status === 'failed') expect(terminal.outcome.error.message).toMatch(/crashing as asked/);
      await recorder.close();
      expect(recorder.events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
      expect(recorder.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });
    }
    expect(liveProcessCount()).toBe(0);
    // Same launch settings: the dead process is not reused, a new one starts (its first lane again).
    const c = await open(made);
    expect(liveProcessCount()).toBe(1);
    expect(c.session.nativeSessionId).toBe(a.session.nativeSessionId);
  });

  it('warm(1) keeps an initialised process ready; a session takes it and a replacement starts; warm(0) stops it', async () => {
    const made = harness();
    harnesses.push(made);
    await made.warm?.(1);
    expect(liveProcessCount()).toBe(1);
    const a = await open(made);
    await expect.poll(() => liveProcessCount(), { timeout: 5_000 }).toBe(2);
    const sent = await a.session.send('Say hello.');
    expect((await a.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    await made.warm?.(0);
    expect(liveProcessCount()).toBe(1);
    await a.recorder.close();
    expect(liveProcessCount()).toBe(0);
  });

  it('shareProcess: false gives each session a process of its own', async () => {
    const made = harness({}, { shareProcess: false });
    await open(made);
    await open(made);
    expect(liveProcessCount()).toBe(2);
  });

  it('warm refuses a count that is not a whole number', async () => {
    await expect(harness().warm?.(-1)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a session opened after Codex was replaced in place runs on the new executable; the earlier one keeps its process until it closes', async () => {
    // The app-server's executable at one path, written again as an upgrade does (a new file there).
    const dir = await mkdtemp(join(tmpdir(), 'reins-codex-upgrade-'));
    const codex = join(dir, 'codex');
    const install = async (version: string) => {
      await rm(codex, { force: true });
      await writeFile(codex, `#!/bin/sh\n# ${version}\nexec "${fake}" "$@"\n`);
      await chmod(codex, 0o755);
    };
    try {
      await install('1');
      const made = harness({}, { binaryPath: codex });
      const a = await open(made);
      expect(liveProcessCount()).toBe(1);
      await install('2');
      const b = await open(made);
      expect(liveProcessCount()).toBe(2);
      // The next session joins the new process; the old one still serves its session.
      await open(made);
      expect(liveProcessCount()).toBe(2);
      const sent = await a.session.send('Say hello.');
      expect((await a.recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
      await a.recorder.close();
      expect(liveProcessCount()).toBe(1);
      const next = await b.session.send('Say hello.');
      expect((await b.recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    } finally {
      await SessionRecorder.closeAll(recorders.splice(0));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
