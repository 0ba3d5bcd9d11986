// Process level: the adapter against a fake `codex app-server` (testkit/fakes/codex-app-server.mjs)
// that replays frames recorded from the real Codex 0.169.0, with knobs for crashes, hangs, garbage,
// stderr noise and a slow start. Real processes, no real CLI.
import { fileURLToPath } from 'node:url';
import { ReinsError } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';
import { EventLog, expectSoundStream } from './test-helpers.js';

const fake = fileURLToPath(new URL('../../../testkit/fakes/codex-app-server.mjs', import.meta.url));
const transcript = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.jsonl`, import.meta.url));

function harness(name: string, knobs: Record<string, string> = {}, requestTimeoutMs = 5_000) {
  return createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript(name), ...knobs },
    requestTimeoutMs,
    interruptGraceMs: 1_000,
  });
}

describe('codex adapter against the fake app-server', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    expect(liveProcessCount()).toBe(0);
  });

  async function open(name: string, knobs: Record<string, string> = {}, requestTimeoutMs?: number) {
    const session = await harness(name, knobs, requestTimeoutMs).createSession({ cwd: process.cwd() });
    const log = new EventLog(session.events);
    closers.push(async () => {
      await session.close();
      await log.done;
    });
    return { session, log };
  }

  it('replays a text turn over real stdio framing', async () => {
    const { session, log } = await open('text-turn');
    expect(session.nativeSessionId).toBeTruthy();
    const sent = await session.send('Say hello.');
    const terminal = await log.turnCompleted(sent.turnId, 5_000);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(terminal.usage?.turn?.total).toBe(129);
    const text = log
      .ofTurn(sent.turnId)
      .flatMap((event) => (event.type === 'item.delta' ? [event.text] : []))
      .join('');
    expect(text).toBe('Hello from the scripted model.');
    expect(log.ofType('session.started')[0]?.harnessVersion).toBe('0.169.0');
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });

  it('fails the running turn with process_exited when the harness crashes mid-turn, with its stderr', async () => {
    const { session, log } = await open('text-turn', {
      FAKE_CODEX_CRASH_AFTER: 'item/agentMessage/delta',
      FAKE_CODEX_STDERR: '1',
    });
    const sent = await session.send('Say hello.');
    const terminal = await log.turnCompleted(sent.turnId, 5_000);
    expect(terminal.outcome.status).toBe('failed');
    if (terminal.outcome.status === 'failed') {
      expect(terminal.outcome.error.code).toBe('process_exited');
      expect(terminal.outcome.error.message).toMatch(/exited with code 70/);
      expect(terminal.outcome.error.message).toMatch(/crashing as asked/);
    }
    await log.done;
    expect(log.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });
    expectSoundStream(log.events);
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
    const { session, log } = await open('text-turn', { FAKE_CODEX_HANG: 'turn/start' }, 2_000);
    const sent = await session.send('Say hello.');
    const terminal = await log.turnCompleted(sent.turnId, 5_000);
    expect(terminal.outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });

  it('keeps lines that are not JSON as passthrough events and carries on', async () => {
    const { session, log } = await open('text-turn', { FAKE_CODEX_GARBAGE: '1', FAKE_CODEX_STDERR: '1' });
    const sent = await session.send('Say hello.');
    expect((await log.turnCompleted(sent.turnId, 5_000)).outcome).toEqual({ status: 'completed' });
    const garbage = log.ofType('passthrough').filter((event) => event.frame === 'this is not json {');
    expect(garbage.length).toBeGreaterThan(0);
    expect(garbage[0]?.native).toMatchObject({ source: 'codex.app-server', frame: 'this is not json {' });
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });

  it('tolerates a slow start', async () => {
    const { session, log } = await open('text-turn', { FAKE_CODEX_SLOW_START_MS: '400' });
    const sent = await session.send('Say hello.');
    expect((await log.turnCompleted(sent.turnId, 5_000)).outcome).toEqual({ status: 'completed' });
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });

  it('answers approval requests through respondToPermission (replayed ask posture)', async () => {
    const session = await harness('approvals-decline').createSession({ cwd: process.cwd(), posture: 'ask' });
    const log = new EventLog(session.events);
    closers.push(async () => {
      await session.close();
      await log.done;
    });
    const sent = await session.send('Touch a file.');
    const request = await log.waitFor((event) => event.type === 'permission.requested', 'permission.requested', 5_000);
    if (request.type !== 'permission.requested') throw new Error('unreachable');
    expect(request.tool.kind).toBe('command');
    await session.respondToPermission(request.requestId, { behavior: 'deny' });
    const terminal = await log.turnCompleted(sent.turnId, 5_000);
    expect(terminal.outcome).toEqual({ status: 'completed' });
    expect(log.ofType('permission.resolved')).toMatchObject([{ requestId: request.requestId, by: 'client' }]);
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });

  it('declines a permission request nobody answers once its deadline passes', async () => {
    const session = await createCodexHarness({
      binaryPath: fake,
      baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript('approvals-decline') },
      requestTimeoutMs: 5_000,
      permissionTimeoutMs: 200,
    }).createSession({ cwd: process.cwd(), posture: 'ask' });
    const log = new EventLog(session.events);
    closers.push(async () => {
      await session.close();
      await log.done;
    });
    const sent = await session.send('Touch a file.');
    const resolved = await log.waitFor((event) => event.type === 'permission.resolved', 'permission.resolved', 5_000);
    expect(resolved).toMatchObject({ by: 'timeout', decision: { behavior: 'deny' } });
    expect((await log.turnCompleted(sent.turnId, 5_000)).outcome).toEqual({ status: 'completed' });
    await session.close();
    await log.done;
    expectSoundStream(log.events);
  });
});
