// The adapter against the fake `claude` (harnesses/src/claude-code/testing/fake.mjs) replaying frames
// recorded from Claude Code 2.1.197: the Agent SDK wiring, the process bridge and the failure paths
// (crash mid-turn, garbage on stdout, stderr noise, slow start, hang) without the real CLI.
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { makeTempHome, SessionRecorder, type TempHome } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { type ClaudeCodeHarnessOptions, createClaudeCodeHarness } from './adapter.js';

let temp: TempHome;
beforeAll(async () => {
  temp = await makeTempHome('reins-cc-fake-');
  await chmod(FAKE_CLAUDE, 0o755);
});
afterAll(async () => {
  await temp.cleanup();
});
const recorders: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

function fakeHarness(knobs: Record<string, string>, options: Partial<ClaudeCodeHarnessOptions> = {}) {
  return createClaudeCodeHarness({
    binaryPath: FAKE_CLAUDE,
    baseEnv: {
      PATH: process.env.PATH,
      HOME: temp.home,
      TMPDIR: temp.tmp,
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'text-turn.2.1.197.jsonl'),
      ...knobs,
    },
    requestTimeoutMs: 10_000,
    ...options,
  });
}

async function open(knobs: Record<string, string> = {}, options: Partial<ClaudeCodeHarnessOptions> = {}) {
  const session = await fakeHarness(knobs, options).createSession({ cwd: temp.dir });
  // Every wait 10 s at most; closed after the test at the latest, which checks the invariants.
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

describe('claude-code against the fake CLI', () => {
  test('replays a recorded text turn: deltas, one agent message, usage and cost', async () => {
    const { session, recorder } = await open();
    const turn = await session.send('Say hello');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome).toEqual({ status: 'completed' });
    const messages = recorder.ofType('item.completed').filter((event) => event.item.kind === 'agent_message');
    expect(messages).toHaveLength(1);
    expect(recorder.ofType('item.delta').length).toBeGreaterThan(0);
    expect(done.usage?.costUsd?.source).toBe('provider');
    // The fake reports the session id it was launched with: the one Reins fixed up front.
    expect(recorder.ofType('session.updated')[0]?.nativeSessionId).toBe(session.nativeSessionId);
    await recorder.close();
  });

  test('crash mid-turn -> failed with process_exited, session closed, no hang', async () => {
    const { session, recorder } = await open({ FAKE_CLAUDE_CRASH_AFTER: '4' });
    const turn = await session.send('Say hello');
    const done = await recorder.terminalOf(turn);
    expect(done.outcome.status).toBe('failed');
    if (done.outcome.status !== 'failed') return;
    expect(done.outcome.error.code).toBe('process_exited');
    expect(done.outcome.error.message).toContain('crashing mid-turn');
    const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    expect(closed).toMatchObject({ reason: 'process_exited' });
    await expect(session.send('again')).rejects.toSatisfy((error) => ReinsError.isInstance(error));
    await recorder.close();
  });

  test('garbage on stdout becomes a passthrough event and the turn still completes', async () => {
    const { session, recorder } = await open({ FAKE_CLAUDE_GARBAGE: '1' });
    const turn = await session.send('Say hello');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('passthrough').some((event) => event.frame === 'this is not json {oops')).toBe(true);
    await recorder.close();
  });

  test('stderr noise does not disturb the turn', async () => {
    const { session, recorder } = await open({ FAKE_CLAUDE_STDERR_NOISE: '1' });
    const turn = await session.send('Say hello');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  test('slow start within the deadline works; past it createSession fails with timeout and leaves no process', async () => {
    const slow = await open({ FAKE_CLAUDE_SLOW_START_MS: '800' });
    const turn = await slow.session.send('Say hello');
    expect((await slow.recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    await slow.recorder.close();

    const harness = fakeHarness({ FAKE_CLAUDE_SLOW_START_MS: '5000' }, { requestTimeoutMs: 500 });
    await expect(harness.createSession({ cwd: temp.dir })).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'timeout',
    );
    expect(liveProcessCount()).toBe(0);
  });

  test('a hung turn is interrupted: cancelled, no hang', async () => {
    const { session, recorder } = await open({ FAKE_CLAUDE_HANG: '1' });
    const turn = await session.send('hang');
    await recorder.waitFor((event) => event.type === 'session.status' && event.status === 'running', 'running');
    await session.interrupt();
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'cancelled' });
    await recorder.close();
  });

  test('health from `claude auth status`, models from initialize, capabilities implemented', async () => {
    const harness = fakeHarness({});
    const health = await harness.health();
    expect(health.status).toBe('ready');
    expect(health.binary?.version).toBe('2.1.197');
    expect((await fakeHarness({ FAKE_CLAUDE_LOGGED_IN: '0' }).health()).status).toBe('auth_required');
    const models = await harness.models?.();
    expect(models?.length).toBeGreaterThan(0);
    expect(models?.every((model) => typeof model.id === 'string' && model.id.length > 0)).toBe(true);
    const capabilities = await harness.capabilities();
    expect(capabilities.queue.implemented.state).toBe('yes');
    expect(capabilities.steer.implemented.state).toBe('no');
    expect(capabilities.liveEffortSwitch.implemented).toMatchObject({ state: 'yes', how: 'restart' });
    expect(capabilities.fork.implemented).toMatchObject({ state: 'yes', how: 'native' });
  });

  test('models are the CLI own list, as it answers initialize: 2.1.332 aliases (fable; no opus[1m] or sonnet[1m])', async () => {
    const harness = fakeHarness({ FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'background-subagent.2.1.332.jsonl') });
    const models = (await harness.models?.()) ?? [];
    expect(models.map((model) => model.id)).toEqual(['default', 'opus', 'fable', 'sonnet', 'haiku', 'fake-model']);
    expect(models.find((model) => model.id === 'default')).toMatchObject({ isDefault: true });
    expect(models.find((model) => model.id === 'fable')?.efforts).toContain('max');
    // Each model's efforts are the CLI's own supportedEffortLevels; no default effort, since neither the
    // CLI's answer nor the Agent SDK's ModelInfo names one (2.1.332 / 0.3.332).
    for (const model of models) {
      expect(model.efforts).toEqual(['low', 'medium', 'high', 'xhigh', 'max']);
      expect(model.defaultEffort).toBeUndefined();
    }
    const previous = (await fakeHarness({}).models?.())?.map((model) => model.id);
    expect(previous).toEqual(expect.arrayContaining(['opus[1m]', 'sonnet[1m]']));
  });

  test('root with posture bypass and no IS_SANDBOX fails up front with the fix named', async () => {
    const harness = createClaudeCodeHarness({
      binaryPath: FAKE_CLAUDE,
      baseEnv: { PATH: process.env.PATH, HOME: temp.home },
    });
    if (process.getuid?.() !== 0) {
      // Not root: the same spec is fine (the check only applies to root).
      const session = await harness.createSession({ cwd: temp.dir });
      await session.close();
      return;
    }
    await expect(harness.createSession({ cwd: temp.dir })).rejects.toSatisfy(
      (error) =>
        ReinsError.isInstance(error) && error.code === 'harness_unhealthy' && error.message.includes('IS_SANDBOX=1'),
    );
    // The fixes named in the message work: IS_SANDBOX=1 in the spec env, or posture ask.
    const sandboxed = await harness.createSession({ cwd: temp.dir, env: { IS_SANDBOX: '1' } });
    await sandboxed.close();
    const asking = await harness.createSession({ cwd: temp.dir, posture: 'ask' });
    await asking.close();
  });

  test('invalid input is refused with a clear error', async () => {
    const harness = fakeHarness({});
    await expect(harness.createSession({ cwd: '' })).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'invalid_input',
    );
    await expect(harness.createSession({ cwd: temp.dir, effort: 'minimal' })).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'invalid_input' && error.message.includes('minimal'),
    );
  });

  test('turn input: images go inline as base64 blocks, file references as @-mentions', async () => {
    const sent: string[] = [];
    const { session, recorder } = await open({}, { tap: (direction, text) => direction === 'in' && sent.push(text) });
    const turn = await session.send({
      text: 'Look at this',
      images: [{ source: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
      files: [{ path: 'src/main.ts', lines: { start: 3, end: 9 } }],
    });
    await recorder.terminalOf(turn);
    const user = sent.map((line) => JSON.parse(line)).find((frame) => frame.type === 'user');
    expect(user.message.content).toEqual([
      { type: 'text', text: 'Look at this\n@src/main.ts#L3-9' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    await recorder.close();
  });
});
