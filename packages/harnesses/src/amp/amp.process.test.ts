// Process level: the Amp adapter against the fake `amp` (packages/harnesses/src/amp/testing/fake.mjs) that
// replays constructed stream-json turns with stdin kept open. No live Amp was observed.
import { fileURLToPath } from 'node:url';
import type { SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createAmpHarness } from './adapter.js';

const fake = fakeHarnessPath('amp');
const script = fileURLToPath(new URL('./fixtures/constructed-turns.0.0.1790142911-g7618fb.jsonl', import.meta.url));
const recorders: SessionRecorder[] = [];

async function open(extra: Record<string, string> = {}, spec: Partial<SessionSpec> = {}) {
  const harness = createAmpHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script, ...extra },
  });
  const session = await harness.createSession({ cwd: process.cwd(), ...spec });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { harness, session, recorder };
}

afterEach(async () => {
  // Closing checks each session's stream invariants.
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

describe('amp adapter against the fake amp', () => {
  it('runs turns with stdin open: each ends at its assistant stop, a queued one follows', async () => {
    const { harness, session, recorder } = await open();
    const discovery = await harness.discover();
    expect(discovery).toMatchObject({ found: true, binary: { version: '0.0.1790142911-g7618fb' } });
    const first = await session.send('Say hello.');
    const second = await session.send('Run a command.');
    expect(second.delivery).toBe('queued');
    await recorder.terminalOf(second);
    expect(recorder.ofType('turn.completed').map((event) => event.turnId)).toEqual([first.turnId, second.turnId]);
    expect(session.nativeSessionId).toBe('T-3f1c2a');
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        type: 'item.completed',
        item: expect.objectContaining({ kind: 'tool_call', status: 'completed' }),
      }),
    );
    await recorder.close();
  });

  it('a crash mid-turn fails the turn with process_exited', async () => {
    const { recorder } = await open({ FAKE_AMP_EXIT_AFTER: '1' });
    const done = await recorder.turn('Say hello.');
    expect(done).toMatchObject({
      outcome: { status: 'failed', error: { code: 'process_exited', message: expect.stringContaining('crashing') } },
    });
    await recorder.close();
  });

  it('a line that is not JSON is passed through', async () => {
    const { recorder } = await open({ FAKE_AMP_GARBAGE: 'amp: not json' });
    await recorder.turn('Say hello.');
    await recorder.close();
    expect(recorder.events).toContainEqual(expect.objectContaining({ type: 'passthrough', frame: 'amp: not json' }));
  });

  it('says plainly what it does not do', async () => {
    const { session } = await open();
    await expect(session.setModel('x')).rejects.toMatchObject({ code: 'unsupported_capability' });
    const harness = createAmpHarness({
      binaryPath: fake,
      baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script },
    });
    await expect(
      harness.createSession({ cwd: process.cwd(), resume: { nativeSessionId: 'T-1' } }),
    ).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
  });

  it('a turn Amp accepts and then goes silent ends failed with timeout (stall watchdog)', async () => {
    // The fixture scripts three turns; the fake answers a fourth with silence.
    const { session, recorder } = await open({}, { stallTimeoutMs: 300 });
    await recorder.turn('one');
    await recorder.turn('two');
    await recorder.turn('three');
    const stalled = await recorder.turn('four');
    expect(stalled).toMatchObject({ outcome: { status: 'failed', error: { code: 'timeout' } } });
    await expect(session.interrupt()).resolves.toBeUndefined(); // nothing runs any more
    await recorder.close();
  });

  it('interrupting a running Amp turn is refused honestly; queued turns are cancelled', async () => {
    const { session, recorder } = await open({}, { stallTimeoutMs: 60_000 });
    await recorder.turn('one');
    await recorder.turn('two');
    await recorder.turn('three');
    const running = await session.send('silent');
    const queued = await session.send('queued');
    await expect(session.interrupt()).rejects.toMatchObject({ code: 'unsupported_capability' });
    expect(running.delivery).toBe('started');
    expect(queued.delivery).toBe('queued');
    await recorder.close();
    expect(recorder.ofType('turn.completed').slice(-2)).toMatchObject([
      { turnId: running.turnId, outcome: { status: 'cancelled' } },
      { turnId: queued.turnId, outcome: { status: 'cancelled' } },
    ]);
  });

  it('every turn carries a user_message item with the caller clientMessageId', async () => {
    const { session, recorder } = await open();
    const sent = await session.send('Say hello.', { clientMessageId: 'bubble-1' });
    await recorder.terminalOf(sent);
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        type: 'item.completed',
        turnId: sent.turnId,
        item: expect.objectContaining({ kind: 'user_message', text: 'Say hello.', clientMessageId: 'bubble-1' }),
      }),
    );
    await recorder.close();
  });

  it('structured output is emulated and judged against the schema (the scripted reply is prose)', async () => {
    const { session, recorder } = await open();
    const sent = await session.send('Say hello.', {
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    expect(await recorder.terminalOf(sent)).toMatchObject({
      outcome: { status: 'failed', error: { code: 'structured_output_invalid' } },
    });
    await recorder.close();
  });

  it('a closed session answers every call with the one closed-session error', async () => {
    const { session, recorder } = await open();
    await recorder.close();
    await expect(session.send('again')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'session_closed' },
    });
    await expect(session.setModel('x')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses spec fields it cannot honour, naming the field, and a cwd that is not a directory', async () => {
    const harness = createAmpHarness({
      binaryPath: fake,
      baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script },
    });
    for (const [field, extra] of [
      ['model', { model: 'x' }],
      ['allowedTools', { allowedTools: ['Bash'] }],
      ['ephemeral', { ephemeral: true }],
      ['systemPrompt', { systemPrompt: { append: 'be brief' } }],
      ['mcpServers', { mcpServers: [{ name: 'm', transport: 'stdio', command: 'x' }] }],
      ['posture', { posture: 'ask' }],
    ] as const) {
      await expect(
        harness.createSession({ cwd: process.cwd(), ...(extra as Partial<SessionSpec>) }),
      ).rejects.toMatchObject({
        code: 'unsupported_capability',
        data: { field },
      });
    }
    await expect(harness.createSession({ cwd: '/does/not/exist' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('/does/not/exist does not exist'),
    });
    await expect(harness.createSession({ cwd: '/etc/passwd' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('is not a directory'),
    });
  });
});
