// Process level, the session chassis behaviours on Codex: the adapter against the fake app-server
// (harnesses/src/codex/testing/fake.mjs) replaying frames recorded from the real Codex 0.169.0, with
// knobs to inject frames mid-turn (FAKE_CODEX_INJECT) and to go quiet after accepting a turn
// (FAKE_CODEX_SILENT_AFTER). What the adapter sent is read from the tap.
import { fileURLToPath } from 'node:url';
import type { ReinsEvent, SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.0.169.0.jsonl`, import.meta.url));

/** The requests the adapter wrote to the app-server, in order. */
type Sent = Array<{ method: string; params: Record<string, unknown> }>;

function harness(name: string, knobs: Record<string, string> = {}, sent: Sent = []) {
  return createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript(name), ...knobs },
    requestTimeoutMs: 5_000,
    interruptGraceMs: 2_000,
    tap: (direction, text) => {
      if (direction !== 'in') return;
      const message = JSON.parse(text) as { method?: string; params?: Record<string, unknown> };
      if (message.method) sent.push({ method: message.method, params: message.params ?? {} });
    },
  });
}

const recorders: SessionRecorder[] = [];
afterEach(async () => {
  // Closing checks each session's stream invariants.
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

async function open(name: string, knobs: Record<string, string> = {}, spec: Partial<SessionSpec> = {}) {
  const sent: Sent = [];
  const session = await harness(name, knobs, sent).createSession({ cwd: process.cwd(), ...spec });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder, sent };
}

const methods = (sent: Sent) => sent.map((request) => request.method);
const userMessages = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'user_message' ? [event.item] : [],
  );

describe('codex session on the chassis (fake app-server)', () => {
  // Issue 14, "What was measured": each of these once took the whole process down.
  it.each([
    ['an item of a kind this Reins does not know', { type: 'futureItemKind', id: 'x' }, 'item/started'],
    ['a thread status this Reins does not know', undefined, 'thread/status/changed'],
    ['an item/started with no item', undefined, 'item/started'],
  ] as const)(
    '%s mid-turn becomes a passthrough and a warning; this turn and the next complete',
    async (_name, item, method) => {
      const frame =
        method === 'thread/status/changed'
          ? { method, params: { threadId: '{{threadId}}', status: { type: 'paused' } } }
          : { method, params: { threadId: '{{threadId}}', ...(item ? { item } : {}) } };
      const { session, recorder } = await open('queue', { FAKE_CODEX_INJECT: JSON.stringify(frame) });
      const first = await session.send('First question.');
      const second = await session.send('Second question.');
      expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
      expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
      const detail = JSON.stringify(method === 'thread/status/changed' ? { type: 'paused' } : (item ?? null));
      const injected = recorder.ofType('passthrough').find((event) => {
        const params = (event.frame as { params?: { threadId?: string; status?: unknown; item?: unknown } }).params;
        return (
          (event.frame as { method?: string }).method === method &&
          params?.threadId === session.nativeSessionId &&
          JSON.stringify(params?.item ?? params?.status ?? null) === detail
        );
      });
      expect(injected?.reason).toMatch(/^(unknown|unparsable|untranslatable)$/);
      expect(injected?.turnId).toBe(first.turnId);
      expect(recorder.ofType('notice')).toContainEqual(
        expect.objectContaining({
          kind: 'warning',
          data: expect.objectContaining({ method, reason: injected?.reason }),
        }),
      );
      await recorder.close();
    },
  );

  it('stall watchdog: a turn Codex accepts and then goes quiet on fails with timeout; Codex is told to stop it and the queued turn runs after its end', async () => {
    const { session, recorder, sent } = await open(
      'interrupt',
      { FAKE_CODEX_SILENT_AFTER: 'turn/started' },
      { stallTimeoutMs: 300 },
    );
    const first = await session.send('Start a long answer.');
    const second = await session.send('Are you still there?');
    expect(second.delivery).toBe('queued');
    expect((await recorder.terminalOf(first)).outcome).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: expect.stringContaining('stallTimeoutMs') },
    });
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    // turn/interrupt for the stalled turn went out before the next turn/start (Codex takes a
    // turn/start during an active turn as a steer).
    expect(methods(sent).filter((m) => m.startsWith('turn/'))).toEqual(['turn/start', 'turn/interrupt', 'turn/start']);
    const late = recorder
      .ofType('passthrough')
      .find((event) => (event.frame as { method?: string }).method === 'turn/completed');
    expect(late?.turnId).toBeNull();
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
    await recorder.close();
  });

  it('interrupt ends the running turn AND every queued turn cancelled, each with one terminal; the session goes on', async () => {
    const { session, recorder, sent } = await open('interrupt');
    const first = await session.send('Start a long answer.');
    await recorder.waitFor((event) => event.type === 'item.delta' && event.turnId === first.turnId, 'a text delta');
    const second = await session.send('Second.', { clientMessageId: 'queued-2' });
    const third = await session.send('Third.');
    expect([second.delivery, third.delivery]).toEqual(['queued', 'queued']);
    await session.interrupt();
    for (const turn of [first, second, third]) {
      expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'cancelled' });
    }
    expect(recorder.ofType('turn.completed').map((event) => event.turnId)).toEqual([
      first.turnId,
      second.turnId,
      third.turnId,
    ]);
    expect(userMessages(recorder.turnEvents(second.turnId))).toMatchObject([
      { text: 'Second.', status: 'cancelled', clientMessageId: 'queued-2' },
    ]);
    const fourth = await session.send('Back?');
    expect((await recorder.terminalOf(fourth)).outcome).toEqual({ status: 'completed' });
    expect(methods(sent).filter((m) => m.startsWith('turn/'))).toEqual(['turn/start', 'turn/interrupt', 'turn/start']);
    await recorder.close();
  });

  it('each turn has exactly one user_message, carrying the clientMessageId; Codex gets it as clientUserMessageId', async () => {
    const { session, recorder, sent } = await open('text-turn');
    const turn = await session.send('Say hello.', { clientMessageId: 'bubble-7' });
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    expect(userMessages(recorder.turnEvents(turn.turnId))).toEqual([
      {
        kind: 'user_message',
        id: `${turn.turnId}:input`,
        status: 'completed',
        text: 'Say hello.',
        clientMessageId: 'bubble-7',
      },
    ]);
    expect(sent.find((request) => request.method === 'turn/start')?.params).toMatchObject({
      clientUserMessageId: 'bubble-7',
    });
    // Codex's own echo of the message is kept, native.
    const echoes = recorder
      .turnEvents(turn.turnId)
      .filter((event) => event.type === 'passthrough' && JSON.stringify(event.frame).includes('"userMessage"'));
    expect(echoes).toHaveLength(2);
    await recorder.close();
  });

  it('honours model, effort, posture, system prompt, MCP servers and ephemeral on the wire', async () => {
    const { session, recorder, sent } = await open(
      'text-turn',
      {},
      {
        model: 'fake-model',
        effort: 'high',
        posture: 'ask',
        systemPrompt: { append: 'Be brief.' },
        mcpServers: [{ name: 'notes', transport: 'stdio', command: 'notes-server', args: ['--ro'] }],
        ephemeral: true,
      },
    );
    const turn = await session.send('Say hello.');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    expect(sent.find((request) => request.method === 'thread/start')?.params).toEqual({
      cwd: process.cwd(),
      model: 'fake-model',
      approvalPolicy: 'untrusted',
      sandbox: 'danger-full-access',
      developerInstructions: 'Be brief.',
      config: { mcp_servers: { notes: { command: 'notes-server', args: ['--ro'] } } },
      ephemeral: true,
    });
    expect(sent.find((request) => request.method === 'turn/start')?.params).toMatchObject({ effort: 'high' });
    await recorder.close();
  });

  it('refuses what it cannot honour, naming the field, before any process starts; a bad cwd is invalid_input', async () => {
    const codex = harness('text-turn');
    await expect(codex.createSession({ cwd: process.cwd(), allowedTools: ['exec_command'] })).rejects.toMatchObject({
      code: 'unsupported_capability',
      data: { field: 'allowedTools' },
    });
    await expect(
      codex.createSession({ cwd: process.cwd(), ephemeral: true, resume: { nativeSessionId: 'thr_1' } }),
    ).rejects.toMatchObject({ code: 'unsupported_capability', data: { field: 'ephemeral' } });
    await expect(
      codex.createSession({ cwd: process.cwd(), outputSchema: { type: 'object', patternProperties: {} } }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(codex.createSession({ cwd: '/does/not/exist' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('/does/not/exist does not exist'),
    });
    await expect(codex.createSession({ cwd: '/etc/passwd' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('is not a directory'),
    });
    expect(liveProcessCount()).toBe(0);
    // Resume is honoured: an id Codex does not know fails resume_failed, never a fresh thread.
    await expect(
      harness('resume-unknown').createSession({ cwd: process.cwd(), resume: { nativeSessionId: 'thr_unknown' } }),
    ).rejects.toMatchObject({ code: 'resume_failed' });
  });

  it('a closed session answers every call with the one closed-session error', async () => {
    const { session, recorder } = await open('text-turn');
    await recorder.close();
    for (const call of [() => session.send('again'), () => session.setModel('x'), () => session.setEffort('low')]) {
      await expect(call()).rejects.toMatchObject({ code: 'invalid_input', data: { reason: 'session_closed' } });
    }
    await expect(session.interrupt()).resolves.toBeUndefined();
    expect(recorder.events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'requested' });
  });
});
