// Process level: the adapter against a fake `codex app-server` (harnesses/src/codex/testing/fake.mjs)
// that replays frames recorded from the real Codex 0.169.0, with knobs for crashes, hangs, garbage,
// stderr noise and a slow start. Real processes, no real CLI.
import { fileURLToPath } from 'node:url';
import { type PermissionRequestedEvent, ReinsError, type Session } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.0.169.0.jsonl`, import.meta.url));

function harness(name: string, knobs: Record<string, string> = {}, requestTimeoutMs = 5_000) {
  return createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript(name), ...knobs },
    requestTimeoutMs,
    interruptGraceMs: 1_000,
  });
}

describe('codex adapter against the fake app-server', () => {
  const recorders: SessionRecorder[] = [];
  afterEach(async () => {
    await SessionRecorder.closeAll(recorders.splice(0));
    expect(liveProcessCount()).toBe(0);
  });

  /** Records the session (every wait 5 s at most) and closes it after the test, checking its invariants. */
  function record(session: Session) {
    const recorder = new SessionRecorder(session, 5_000);
    recorders.push(recorder);
    return { session, recorder };
  }

  async function open(name: string, knobs: Record<string, string> = {}, requestTimeoutMs?: number) {
    return record(await harness(name, knobs, requestTimeoutMs).createSession({ cwd: process.cwd() }));
  }

  it('replays a text turn over real stdio framing', async () => {
    const { session, recorder } = await open('text-turn');
    expect(session.nativeSessionId).toBeTruthy();
    const sent = await session.send('Say hello.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(terminal.usage?.turn?.total).toBe(129);
    const text = recorder
      .turnEvents(sent.turnId)
      .flatMap((event) => (event.type === 'item.delta' ? [event.text] : []))
      .join('');
    expect(text).toBe('Hello from the scripted model.');
    expect(recorder.ofType('session.started')[0]?.harnessVersion).toBe('0.169.0');
    await recorder.close();
  });

  it('fails the running turn with process_exited when the harness crashes mid-turn, with its stderr', async () => {
    const { session, recorder } = await open('text-turn', {
      FAKE_CODEX_CRASH_AFTER: 'item/agentMessage/delta',
      FAKE_CODEX_STDERR: '1',
    });
    const sent = await session.send('Say hello.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status === 'failed') {
      expect(terminal.outcome.error.code).toBe('process_exited');
      expect(terminal.outcome.error.message).toMatch(/exited with code 70/);
      expect(terminal.outcome.error.message).toMatch(/crashing as asked/);
    }
    await recorder.close();
    expect(recorder.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });
  });

  it('times out a harness that never answers initialize, and leaves no process behind', async () => {
    const attempt = harness('text-turn', { FAKE_CODEX_HANG: 'initialize' }, 400).createSession({ cwd: process.cwd() });
    const error = await attempt.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ReinsError.isInstance(error)).toBe(true);
    expect((error as ReinsError).code).toBe('timeout');
    expect((error as ReinsError).message).toMatch(/initialize/);
  });

  it('fails a turn/start that never gets an answer with timeout instead of hanging', async () => {
    const { session, recorder } = await open('text-turn', { FAKE_CODEX_HANG: 'turn/start' }, 2_000);
    const sent = await session.send('Say hello.');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    await recorder.close();
  });

  it('keeps lines that are not JSON as passthrough events and carries on', async () => {
    const { session, recorder } = await open('text-turn', { FAKE_CODEX_GARBAGE: '1', FAKE_CODEX_STDERR: '1' });
    const sent = await session.send('Say hello.');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    const garbage = recorder.ofType('passthrough').filter((event) => event.frame === 'this is not json {');
    expect(garbage.length).toBeGreaterThan(0);
    expect(garbage[0]?.native).toMatchObject({ source: 'codex.app-server', frame: 'this is not json {' });
    await recorder.close();
  });

  it('tolerates a slow start', async () => {
    const { session, recorder } = await open('text-turn', { FAKE_CODEX_SLOW_START_MS: '400' });
    const sent = await session.send('Say hello.');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  it('answers approval requests through respondToPermission (replayed ask posture)', async () => {
    const { session, recorder } = record(
      await harness('approvals-decline').createSession({ cwd: process.cwd(), posture: 'ask' }),
    );
    const sent = await session.send('Touch a file.');
    const request = await recorder.waitFor(
      (event): event is PermissionRequestedEvent => event.type === 'permission.requested',
      'permission.requested',
    );
    expect(request.tool.kind).toBe('command');
    await session.respondToPermission(request.requestId, { behavior: 'deny' });
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('permission.resolved')).toMatchObject([{ requestId: request.requestId, by: 'client' }]);
    await recorder.close();
  });

  it('declines a permission request nobody answers once its deadline passes', async () => {
    const { session, recorder } = record(
      await createCodexHarness({
        binaryPath: fake,
        baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript('approvals-decline') },
        requestTimeoutMs: 5_000,
        permissionTimeoutMs: 200,
      }).createSession({ cwd: process.cwd(), posture: 'ask' }),
    );
    const sent = await session.send('Touch a file.');
    const resolved = await recorder.waitFor((event) => event.type === 'permission.resolved', 'permission.resolved');
    expect(resolved).toMatchObject({ by: 'timeout', decision: { behavior: 'deny' } });
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });
});
