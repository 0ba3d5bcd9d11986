// The generic `acp` harness against the fake ACP agent (packages/harnesses/src/acp/testing/fake.mjs):
// turns, tools, permissions, fs confinement, cancel, queueing, settings, resume in a new process.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionRequestedEvent, ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { createAcpHarness } from './index.js';
import type { AcpSession } from './session.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let cwd: string;
const opened: SessionRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-'));
  cwd = join(dir, 'work');
  await mkdir(cwd);
});
afterEach(async () => {
  try {
    // Closing checks each session's stream invariants.
    await SessionRecorder.closeAll(opened.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function harness(
  scenario: unknown = {},
  env: Record<string, string> = {},
  extra: { authMethod?: string; requestTimeoutMs?: number } = {},
) {
  return createAcpHarness({
    command: FAKE,
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_ACP_SCENARIO: JSON.stringify(scenario),
      FAKE_ACP_STORE: join(dir, 'store'),
      FAKE_ACP_LOG: join(dir, 'log.jsonl'),
      ...env,
    },
    requestTimeoutMs: extra.requestTimeoutMs ?? 5000,
    ...(extra.authMethod ? { authMethod: extra.authMethod } : {}),
  });
}

async function open(h: ReturnType<typeof harness>, spec: Partial<Parameters<typeof h.createSession>[0]> = {}) {
  const session = (await h.createSession({ cwd, ...spec })) as AcpSession;
  const recorder = new SessionRecorder(session, 30_000);
  opened.push(recorder);
  return { session, recorder };
}

const isStatus = (event: ReinsEvent) => event.type === 'session.status';

const of = <T extends ReinsEvent['type']>(events: ReinsEvent[], type: T) =>
  events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);

describe('acp harness against the fake agent', () => {
  it('streams a text turn: reasoning and message items, deltas, usage, one terminal', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              { thought: 'Thinking ' },
              { thought: 'hard.' },
              { text: 'Hello ' },
              { text: 'there.' },
              {
                update: {
                  sessionUpdate: 'usage_update',
                  used: 120,
                  size: 1000,
                  cost: { amount: 0.01, currency: 'USD' },
                },
              },
              { stop: 'end_turn', usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 } },
            ],
          },
        ],
      }),
    );
    const setup = await recorder.collect(isStatus, 'the first session.status');
    expect(setup.find((event) => event.type === 'session.updated')).toMatchObject({
      nativeSessionId: session.nativeSessionId,
      model: 'fake-model',
    });
    const sent = await session.send('hi');
    expect(sent).toEqual({ turnId: 'turn_1', delivery: 'started' });
    const completed = await recorder.terminalOf(sent);
    const events = recorder.turnEvents(sent.turnId);
    const textDeltas = of(events, 'item.delta').filter((delta) => delta.kind === 'text');
    expect(textDeltas.map((delta) => delta.text)).toEqual(['Hello ', 'there.']);
    const items = of(events, 'item.completed').map((event) => event.item);
    expect(items).toEqual([
      expect.objectContaining({ kind: 'user_message', text: 'hi', status: 'completed' }),
      expect.objectContaining({ kind: 'reasoning', text: 'Thinking hard.', status: 'completed' }),
      expect.objectContaining({ kind: 'agent_message', text: 'Hello there.', status: 'completed' }),
    ]);
    expect(of(events, 'usage.updated')[0]).toMatchObject({
      context: { used: 120, window: 1000 },
      costUsd: { amount: 0.01, currency: 'USD', source: 'provider' },
    });
    expect(completed).toMatchObject({
      outcome: { status: 'completed' },
      stopReason: 'end_turn',
      usage: { turn: { input: 100, output: 20, total: 120 } },
    });
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('folds tool_call and its updates into one tool_call item with input from the update', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              {
                update: {
                  sessionUpdate: 'tool_call',
                  toolCallId: 't1',
                  title: 'Terminal',
                  kind: 'execute',
                  status: 'pending',
                  rawInput: {},
                  _meta: { claudeCode: { toolName: 'Bash' } },
                },
              },
              {
                update: {
                  sessionUpdate: 'tool_call_update',
                  toolCallId: 't1',
                  rawInput: { command: 'echo hi' },
                  title: 'echo hi',
                },
              },
              {
                update: {
                  sessionUpdate: 'tool_call_update',
                  toolCallId: 't1',
                  status: 'completed',
                  content: [{ type: 'content', content: { type: 'text', text: 'hi\n' } }],
                  rawOutput: { exitCode: 0, stdout: 'hi\n' },
                },
              },
              { text: 'done' },
            ],
          },
        ],
      }),
    );
    const sent = await session.send('run it');
    const completed = await recorder.terminalOf(sent);
    const events = recorder.turnEvents(sent.turnId);
    const started = of(events, 'item.started').filter((event) => event.item.kind === 'tool_call');
    const done = of(events, 'item.completed').filter((event) => event.item.kind === 'tool_call');
    expect(started).toHaveLength(1);
    expect(done).toHaveLength(1);
    expect(done[0]?.item).toMatchObject({
      id: 't1',
      status: 'completed',
      tool: { kind: 'command', name: 'Bash', title: 'echo hi' },
      input: { command: 'echo hi' },
      output: { text: 'hi\n', structured: { exitCode: 0, stdout: 'hi\n' } },
      exitCode: 0,
    });
    expect(completed.outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  it('closes a tool call the agent left unsettled at turn end', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              {
                update: {
                  sessionUpdate: 'tool_call',
                  toolCallId: 'open1',
                  title: 'Read',
                  kind: 'read',
                  status: 'in_progress',
                },
              },
              { text: 'ok' },
            ],
          },
        ],
      }),
    );
    const sent = await session.send('go');
    await recorder.terminalOf(sent);
    const closed = of(recorder.turnEvents(sent.turnId), 'item.completed').find((event) => event.item.id === 'open1');
    expect(closed?.item.status).toBe('cancelled');
    await recorder.close();
  });

  it('asks for permission under posture ask and answers with the chosen option', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              {
                permission: {
                  toolCall: {
                    toolCallId: 'p1',
                    title: 'rm -rf build',
                    kind: 'execute',
                    rawInput: { command: 'rm -rf build' },
                  },
                },
              },
            ],
          },
        ],
      }),
      { posture: 'ask' },
    );
    const sent = await session.send('clean');
    const request = await recorder.waitFor(
      (event): event is PermissionRequestedEvent => event.type === 'permission.requested',
      'permission.requested',
    );
    expect(request).toMatchObject({ tool: { kind: 'command' }, input: { command: 'rm -rf build' }, itemId: 'p1' });
    expect(request.options.map((option) => option.kind)).toEqual(['allow_once', 'reject_once']);
    await expect(session.respondToPermission('nope', { behavior: 'allow' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await session.respondToPermission(request.requestId, { behavior: 'allow' });
    const completed = await recorder.terminalOf(sent);
    const events = recorder.turnEvents(sent.turnId);
    expect(of(events, 'permission.resolved')[0]).toMatchObject({
      decision: { behavior: 'allow', optionId: 'allow' },
      by: 'client',
    });
    expect(
      of(events, 'item.completed').some(
        (event) => event.item.kind === 'agent_message' && event.item.text === '[permission selected:allow]',
      ),
    ).toBe(true);
    expect(completed.outcome.status).toBe('completed');
    await recorder.close();
  });

  it('serves fs inside the cwd and refuses paths outside it, also through a symlink', async () => {
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await symlink(dir, join(cwd, 'escape'));
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              { writeFile: { path: 'sub/new.txt', content: 'fresh\n' } },
              { readFile: 'sub/new.txt' },
              { readFile: join(dir, 'secret.txt') },
              { readFile: 'escape/secret.txt' },
              { readFile: 'missing.txt' },
            ],
          },
        ],
      }),
    );
    const sent = await session.send('files');
    await recorder.terminalOf(sent);
    const text = of(recorder.turnEvents(sent.turnId), 'item.completed')
      .map((event) => (event.item.kind === 'agent_message' ? event.item.text : ''))
      .join('');
    expect(readFileSync(join(cwd, 'sub/new.txt'), 'utf8')).toBe('fresh\n');
    expect(text).toContain('[written]');
    expect(text).toContain('[read "fresh\\n"]');
    expect(text).toMatch(
      /\[read error -32602: Invalid params: .*secret\.txt is outside the session's working directory/,
    );
    expect(text).toMatch(/\[read error -32602: Invalid params: .*through a symlink/);
    expect(text).toContain('[read error -32002');
    expect(text).not.toContain('"secret"');
    await recorder.close();
  });

  it('interrupts a running turn: cancelled outcome, and the session stays usable', async () => {
    const { session, recorder } = await open(
      harness({ replies: [{ match: 'slow', steps: [{ text: 'working' }, { waitForCancel: true }] }] }),
    );
    const first = await session.send('slow one');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    const completed = await recorder.terminalOf(first);
    expect(completed).toMatchObject({ outcome: { status: 'cancelled' }, stopReason: 'cancelled' });
    const again = await session.send('again');
    expect((await recorder.terminalOf(again)).outcome.status).toBe('completed');
    expect(
      of(recorder.turnEvents(again.turnId), 'item.completed').some(
        (event) => event.item.kind === 'agent_message' && event.item.text === 'echo: again',
      ),
    ).toBe(true);
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
  });

  it('warns when the turn after a cancel ends at once with nothing (claude-agent-acp 0.23.1 off-by-one shape)', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          { match: 'slow', steps: [{ text: 'working' }, { waitForCancel: true }] },
          { match: 'stale', steps: [{ stop: 'end_turn' }] },
        ],
      }),
    );
    const first = await session.send('slow one');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    await recorder.terminalOf(first);
    const stale = await session.send('stale answer');
    expect((await recorder.terminalOf(stale)).outcome.status).toBe('completed');
    expect(of(recorder.turnEvents(stale.turnId), 'notice')[0]).toMatchObject({
      kind: 'warning',
      data: { quirk: 'empty_end_turn_after_cancel' },
    });
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
  });

  it('queues input sent during a turn (no steering in ACP) and refuses steering when asked to fail', async () => {
    const { session, recorder } = await open(
      harness({ replies: [{ match: 'first', steps: [{ sleep: 300 }, { text: 'one' }] }] }),
    );
    const first = await session.send('first');
    expect(first).toMatchObject({ delivery: 'started' });
    const steered = await session.send('second', { mode: 'steer' });
    expect(steered).toEqual({ turnId: 'turn_2', delivery: 'queued' });
    await expect(session.send('third', { mode: 'steer', steerFallback: 'fail' })).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
    await recorder.terminalOf(first);
    expect(of(recorder.turnEvents(first.turnId), 'notice')[0]?.message).toMatch(/no steering/);
    await recorder.terminalOf(steered);
    expect(of(recorder.turnEvents(steered.turnId), 'turn.started')[0]?.input.text).toBe('second');
    await recorder.close();
    // The queued input ran as the next turn, after the first ended.
    expect(recorder.ofType('turn.completed').map((event) => event.turnId)).toEqual(['turn_1', 'turn_2']);
  });

  it('switches model and effort through config options, and refuses an unknown model', async () => {
    const { session, recorder } = await open(harness());
    const setup = await recorder.collect(isStatus, 'the first session.status');
    expect(await session.setModel('fake-model-2')).toEqual({ applied: 'live' });
    await expect(session.setModel('gpt-nonexistent')).rejects.toMatchObject({
      code: 'unsupported_model',
      message: expect.stringContaining('unsupported model'),
    });
    expect(await session.setEffort('high')).toEqual({ applied: 'live' });
    await expect(session.setEffort('xhigh')).rejects.toMatchObject({ code: 'invalid_input' });
    await session.setMode('plan');
    const sent = await session.send('hi');
    const completed = await recorder.terminalOf(sent);
    // What came after the start-up, through the turn: the changes were reported.
    const events = recorder.events.slice(setup.length, recorder.events.indexOf(completed) + 1);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'session.updated', model: 'fake-model-2' }),
        expect.objectContaining({ type: 'session.updated', effort: 'high' }),
        expect.objectContaining({ type: 'session.updated', mode: 'plan' }),
      ]),
    );
    await recorder.close();
  });

  it('falls back to session/set_model, and says unsupported_capability when the agent has neither', async () => {
    const viaSetModel = await open(harness({ setModel: 'set_model', efforts: [] }));
    await viaSetModel.session.setModel('fake-model-2');
    await expect(viaSetModel.session.setEffort('high')).rejects.toMatchObject({ code: 'unsupported_capability' });
    const none = await open(harness({ setModel: 'none' }));
    await expect(none.session.setModel('fake-model-2')).rejects.toMatchObject({ code: 'unsupported_capability' });
    for (const { recorder } of [viaSetModel, none]) {
      await recorder.close();
      expect(recorder.events.at(-1)?.type).toBe('session.closed');
    }
  });

  it('emulates structured output and fails the turn when the answer does not match', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const { recorder } = await open(
      harness({
        replies: [
          { match: 'good', steps: [{ text: '{"answer": 42}' }] },
          { match: 'bad', steps: [{ text: 'no json here' }] },
        ],
      }),
    );
    const good = await recorder.turn('good', { outputSchema: schema });
    expect(good).toMatchObject({ outcome: { status: 'completed' }, structuredOutput: { answer: 42 } });
    const bad = await recorder.turn('bad', { outputSchema: schema });
    expect(bad.outcome).toMatchObject({ status: 'failed', error: { code: 'structured_output_invalid' } });
    const log = readFileSync(join(dir, 'log.jsonl'), 'utf8');
    expect(log).toContain('Answer with a single JSON value');
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
  });

  it('answers unknown agent requests with method-not-found and shows them as passthrough', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [
          {
            steps: [
              { extRequest: 'craft/drainMidTurnQueue' },
              { extNotify: 'qwen/notify/session/model-update' },
              { text: 'after' },
            ],
          },
        ],
      }),
    );
    const sent = await session.send('go');
    const completed = await recorder.terminalOf(sent);
    const events = recorder.turnEvents(sent.turnId);
    const passthrough = of(events, 'passthrough').map((event) => (event.frame as { method?: string }).method);
    expect(passthrough).toEqual(
      expect.arrayContaining(['craft/drainMidTurnQueue', 'qwen/notify/session/model-update']),
    );
    expect(
      of(events, 'item.completed').some(
        (event) => event.item.kind === 'agent_message' && event.item.text.includes('[ext -32601]'),
      ),
    ).toBe(true);
    expect(completed.outcome.status).toBe('completed');
    await recorder.close();
  });

  it('resumes in a new process through session/load: history replayed outside any turn, marked replay', async () => {
    const first = harness();
    const a = await open(first);
    await a.recorder.turn('remember this');
    const nativeId = a.session.nativeSessionId as string;
    await a.recorder.close();

    const b = await open(harness(), { resume: { nativeSessionId: nativeId } });
    const setup = await b.recorder.collect(isStatus, 'the first session.status');
    const replayed = of(setup, 'item.completed');
    expect(replayed.map((event) => event.item)).toEqual([
      expect.objectContaining({ kind: 'user_message', text: 'remember this', replay: true }),
      expect.objectContaining({ kind: 'agent_message', text: 'echo: remember this' }),
    ]);
    expect(replayed.every((event) => event.turnId === null)).toBe(true);
    expect(setup.some((event) => event.type === 'turn.started')).toBe(false);
    expect((await b.recorder.turn('next')).outcome.status).toBe('completed');
    await b.recorder.close();
    expect(b.recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('fails a resume of an unknown session with resume_failed, never a fresh start', async () => {
    await expect(
      harness().createSession({ cwd, resume: { nativeSessionId: 'no-such-session' } }),
    ).rejects.toMatchObject({ code: 'resume_failed' });
  });

  it('shares one agent process between sessions of the same workspace', async () => {
    const h = harness();
    const a = await open(h);
    const b = await open(h);
    expect(liveProcessCount()).toBe(1);
    expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);
    const toA = await a.session.send('to a');
    const toB = await b.session.send('to b');
    await Promise.all([a.recorder.terminalOf(toA), b.recorder.terminalOf(toB)]);
    const texts = (events: ReinsEvent[]) =>
      of(events, 'item.completed').map((event) => (event.item.kind === 'agent_message' ? event.item.text : ''));
    expect(texts(a.recorder.turnEvents(toA.turnId))).toContain('echo: to a');
    expect(texts(b.recorder.turnEvents(toB.turnId))).toContain('echo: to b');
    // Neither session sees the other's turn.
    expect(texts(a.recorder.events)).not.toContain('echo: to b');
    expect(texts(b.recorder.events)).not.toContain('echo: to a');
    await a.recorder.close();
    expect(liveProcessCount()).toBe(1);
    await b.recorder.close();
    expect(liveProcessCount()).toBe(0);
    for (const { recorder } of [a, b]) expect(recorder.ofType('turn.completed')).toHaveLength(1);
  });

  it('lists sessions, replays history, and reports capabilities from initialize', async () => {
    const h = harness();
    const a = await open(h);
    await a.recorder.turn('listed');
    await a.recorder.close();
    const listed = await h.listSessions({ cwd });
    expect(listed.map((entry) => entry.nativeSessionId)).toContain(a.session.nativeSessionId);
    const history = await h.history(a.session.nativeSessionId as string, { cwd });
    expect(history.map((item) => item.kind)).toEqual(['user_message', 'agent_message']);
    const caps = await h.capabilities();
    expect(caps.resume.advertised.state).toBe('yes');
    expect(caps.steer.advertised.state).toBe('no');
    expect(caps.fork.advertised.state).toBe('no');
    expect(caps.structuredOutput.implemented).toMatchObject({ state: 'yes', how: 'emulated' });
    const models = await h.models();
    expect(models).toEqual([
      { id: 'fake-model', displayName: 'fake-model', isDefault: true },
      { id: 'fake-model-2', displayName: 'fake-model-2' },
    ]);
    expect(existsSync(join(dir, 'store'))).toBe(true);
  });
});
