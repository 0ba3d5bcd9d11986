// Process level: the adapter against the fake `pi --mode rpc` (packages/harnesses/src/pi/testing/fake.mjs), which
// replays transcripts recorded from the real Pi 0.73.1. Real processes, no real CLI: crash, garbage and
// hang behaviour that the real CLI cannot be made to show on demand.
import { fileURLToPath } from 'node:url';
import type { SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createPiHarness } from './adapter.js';

const fake = fakeHarnessPath('pi');
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.0.73.1.jsonl`, import.meta.url));
const cwd = process.cwd();
const recorders: SessionRecorder[] = [];

function harness(name: string, extra: Record<string, string> = {}, requestTimeoutMs = 5_000) {
  return createPiHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_PI_TRANSCRIPT: fixture(name), ...extra },
    requestTimeoutMs,
  });
}

async function open(
  name: string,
  extra: Record<string, string> = {},
  requestTimeoutMs?: number,
  spec: Partial<SessionSpec> = {},
) {
  const session = await harness(name, extra, requestTimeoutMs).createSession({ cwd, ...spec });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

afterEach(async () => {
  // Closing checks each session's stream invariants.
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

describe('pi adapter against the fake pi --mode rpc', () => {
  it('replays a text turn: started, items, one completed terminal, nativeSessionId from get_state', async () => {
    const { session, recorder } = await open('text');
    expect(session.nativeSessionId).toMatch(/\.jsonl$/);
    const done = await recorder.turn('Say hello please.');
    expect(done).toMatchObject({ outcome: { status: 'completed' } });
    await recorder.close();
    expect(recorder.events[0]).toMatchObject({
      type: 'session.started',
      harnessVersion: '0.73.1',
      model: 'fake/fake-model',
    });
  });

  it('interrupt: cancelled, then the next turn completes', async () => {
    const { session, recorder } = await open('abort');
    const first = await session.send('Talk slowly.');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    expect(await recorder.terminalOf(first)).toMatchObject({ outcome: { status: 'cancelled' } });
    expect(await recorder.turn('Are you there?')).toMatchObject({ outcome: { status: 'completed' } });
    await recorder.close();
  });

  it('retries: three agent runs, one failed terminal', async () => {
    const { recorder } = await open('retry-fail');
    const done = await recorder.turn('This will fail.');
    expect(done).toMatchObject({ outcome: { status: 'failed', error: { code: 'provider_error' } } });
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('a crash mid-turn fails the turn with process_exited and closes the session', async () => {
    const { session, recorder } = await open('text', { FAKE_PI_EXIT_AFTER: '8' });
    const done = await recorder.turn('Say hello please.');
    expect(done).toMatchObject({
      outcome: {
        status: 'failed',
        error: { code: 'process_exited', message: expect.stringContaining('crashing mid-turn') },
      },
    });
    const closed = await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    expect(closed).toMatchObject({ reason: 'process_exited' });
    // The one closed-session error of every adapter (the chassis).
    await expect(session.send('again')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'session_closed' },
    });
    expect(liveProcessCount()).toBe(0);
    await recorder.close();
  });

  it('a line that is not JSON becomes a passthrough event; the turn still completes', async () => {
    const { recorder } = await open('text', { FAKE_PI_GARBAGE: 'this is not json' });
    await recorder.turn('Say hello please.');
    await recorder.close();
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        type: 'passthrough',
        frame: 'this is not json',
        native: { source: 'pi.rpc', frame: 'this is not json' },
      }),
    );
  });

  it('an extension request whose method nests 8,000 arrays deep is handed on, not stringified', async () => {
    // Short enough to be parsed without the depth scan (runtime/json-depth.ts), deep enough that String()
    // of it overflows the stack: the line must neither end the session nor the process.
    const method = `${'['.repeat(8_000)}1${']'.repeat(8_000)}`;
    const line = JSON.stringify({ type: 'extension_ui_request', id: 'ui-1', method: 'x' }).replace('"x"', method);
    const { recorder } = await open('text', { FAKE_PI_GARBAGE: line });
    const done = await recorder.turn('Say hello please.');
    await recorder.close();
    expect(done).toMatchObject({ outcome: { status: 'completed' } });
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        type: 'passthrough',
        native: expect.objectContaining({ method: 'extension_ui_request' }),
      }),
    );
  });

  it('a prompt that is never answered times out and fails the turn', async () => {
    const { session, recorder } = await open('text', { FAKE_PI_IGNORE: 'prompt' }, 400);
    // send returns the turn id at once; the unanswered prompt ends that turn failed with timeout.
    const sent = await session.send('Say hello please.');
    expect(sent.delivery).toBe('started');
    expect(await recorder.terminalOf(sent)).toMatchObject({
      outcome: { status: 'failed', error: { code: 'timeout' } },
    });
    await recorder.close();
  });

  it('a harness that never answers at start-up fails createSession with timeout and leaves no process', async () => {
    await expect(harness('text', { FAKE_PI_IGNORE: 'get_state' }, 400).createSession({ cwd })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(liveProcessCount()).toBe(0);
  });

  it('rejects what Pi cannot do with clear errors', async () => {
    const pi = harness('text');
    await expect(pi.createSession({ cwd, posture: 'ask' })).rejects.toMatchObject({ code: 'unsupported_capability' });
    await expect(pi.createSession({ cwd: 'relative' })).rejects.toMatchObject({ code: 'invalid_input' });
    const { session } = await open('text');
    await expect(session.send('  ')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(session.setEffort('max')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(session.respondToPermission('x', { behavior: 'allow' })).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
  });

  it('interrupt cancels the running turn AND the queued one, each with one terminal', async () => {
    const { session, recorder } = await open('abort');
    const first = await session.send('Talk slowly.');
    const queued = await session.send('Then this.', { clientMessageId: 'q1' });
    expect(queued.delivery).toBe('queued');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    expect(await recorder.terminalOf(first)).toMatchObject({ outcome: { status: 'cancelled' } });
    expect(await recorder.terminalOf(queued)).toMatchObject({ outcome: { status: 'cancelled' } });
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        turnId: queued.turnId,
        item: expect.objectContaining({ kind: 'user_message', status: 'cancelled', clientMessageId: 'q1' }),
      }),
    );
    await recorder.close();
  });

  it('a prompt Pi accepts and then goes silent ends failed with timeout (stall watchdog)', async () => {
    const { session, recorder } = await open('text', { FAKE_PI_IGNORE: 'prompt' }, 60_000, { stallTimeoutMs: 300 });
    const sent = await session.send('Say hello please.');
    expect(await recorder.terminalOf(sent)).toMatchObject({
      outcome: { status: 'failed', error: { code: 'timeout', message: expect.stringContaining('sent nothing') } },
    });
    await recorder.close();
  });

  it('structured output is emulated: the prompt asks for JSON and a prose reply fails the schema', async () => {
    const { session, recorder } = await open('text');
    const sent = await session.send('Say hello please.', {
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    expect(await recorder.terminalOf(sent)).toMatchObject({
      outcome: { status: 'failed', error: { code: 'structured_output_invalid' } },
    });
    await recorder.close();
  });

  it('refuses what it cannot honour, naming the field, and a cwd that is a file', async () => {
    const pi = harness('text');
    await expect(
      pi.createSession({ cwd, mcpServers: [{ name: 'm', transport: 'stdio', command: 'x' }] }),
    ).rejects.toMatchObject({ code: 'unsupported_capability', data: { field: 'mcpServers' } });
    await expect(pi.createSession({ cwd, posture: 'ask' })).rejects.toMatchObject({ data: { field: 'posture' } });
    await expect(pi.createSession({ cwd: '/etc/passwd' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('not a directory'),
    });
  });
});
