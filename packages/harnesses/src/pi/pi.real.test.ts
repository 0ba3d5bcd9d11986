// The real pinned Pi CLI (0.73.1) driven by the adapter against the scripted model server, inside the
// loopback-only namespace. REINS_RECORD_PI_FIXTURES=1 also writes the stdout frames of each test to
// /tmp/pi-fixtures/<test>.jsonl (the source of fixtures/*.jsonl).
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness, ReinsEvent, Session } from '@reins/core';
import {
  assertHermetic,
  harnessBinary,
  type ModelServer,
  makeTempHome,
  reply,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertEventInvariants, collectUntil } from '../../test/support/event-invariants.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createPiHarness } from './adapter.js';

const binary = harnessBinary('pi');
const cliPath = binary.args[0] as string;
let server: ModelServer;
let home: TempHome;
let harness: Harness;
let env: Record<string, string>;
let workspace: string;
const sessions: Session[] = [];

/** Pi's config home: a fake chat-completions provider with two models and fast, short retries. */
function writePiHome(agentDir: string, serverUrl: string): void {
  mkdirSync(agentDir, { recursive: true });
  const model = (id: string, name: string, reasoning: boolean) => ({
    id,
    name,
    reasoning,
    input: ['text', 'image'],
    // A price so that Pi reports a cost (USD per million tokens).
    cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 },
    contextWindow: reasoning ? 200_000 : 100_000,
    maxTokens: 4096,
  });
  writeFileSync(
    join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: `${serverUrl}/v1`,
          api: 'openai-completions',
          apiKey: 'test-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [model('fake-model', 'Fake Model 1', true), model('fake-model-2', 'Fake Model 2', false)],
        },
      },
    }),
  );
  // Pi 0.73.1 retries 3 times at 2, 4, 8 s; settings.json `retry` shortens that for tests. Under it the
  // OpenAI SDK retries a 5xx twice more by itself (retry.provider.maxRetries, SDK default): off, so each
  // Pi attempt is exactly one request.
  writeFileSync(
    join(agentDir, 'settings.json'),
    JSON.stringify({
      retry: { enabled: true, maxRetries: 2, baseDelayMs: 50, provider: { maxRetries: 0 } },
      quietStartup: true,
    }),
  );
}

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});

beforeEach(async (context) => {
  server.reset();
  home = await makeTempHome('reins-pi-');
  workspace = join(home.dir, 'work');
  mkdirSync(workspace);
  const agentDir = join(home.home, '.pi', 'agent');
  writePiHome(agentDir, server.url);
  env = {
    PATH: [join(binary.nodePath ?? process.execPath, '..'), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home.home,
    TMPDIR: home.tmp,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    TERM: 'dumb',
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_TELEMETRY: '0',
  };
  const record = process.env.REINS_RECORD_PI_FIXTURES === '1';
  const fixture = join('/tmp/pi-fixtures', `${context.task.name.replace(/[^a-z0-9]+/gi, '-')}.jsonl`);
  if (record) {
    mkdirSync('/tmp/pi-fixtures', { recursive: true });
    writeFileSync(
      fixture,
      `${JSON.stringify({ recorded: '@mariozechner/pi-coding-agent', version: binary.version })}\n`,
    );
  }
  harness = createPiHarness({
    binaryPath: cliPath,
    baseEnv: env,
    requestTimeoutMs: 15_000,
    ...(record
      ? {
          tap: (direction, text) =>
            direction !== 'err' &&
            appendFileSync(fixture, `${JSON.stringify({ direction, frame: JSON.parse(text) })}\n`),
        }
      : {}),
  });
});

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
  expect(liveProcessCount()).toBe(0);
  await home.cleanup();
});

async function open(spec: Partial<Parameters<Harness['createSession']>[0]> = {}) {
  const session = await harness.createSession({ cwd: workspace, model: 'fake/fake-model', ...spec });
  sessions.push(session);
  const events: ReinsEvent[] = [];
  return { session, events, iterator: session.events[Symbol.asyncIterator]() };
}

const isTerminal = (event: ReinsEvent) => event.type === 'turn.completed';
const completedItems = (events: ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));

describe('pi (real CLI)', () => {
  it('runs a text turn with reasoning, text deltas and usage', async () => {
    server.enqueue(
      reply().reasoning('Thinking about a greeting.').text('Hello from fake model.').usage({ input: 101, output: 20 }),
    );
    const { session, events, iterator } = await open();
    const sent = await session.send('Say hello please.');
    expect(sent.delivery).toBe('started');
    const done = await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    expect(done).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' }, stopReason: 'stop' });
    expect(done.type === 'turn.completed' && done.usage?.turn).toMatchObject({ input: 101, output: 20 });
    expect(done.type === 'turn.completed' && done.usage?.costUsd).toEqual({
      amount: expect.closeTo((101 * 3 + 20 * 15) / 1e6, 9),
      currency: 'USD',
      source: 'provider',
    });
    const items = completedItems(events);
    expect(items).toContainEqual(expect.objectContaining({ kind: 'user_message', text: 'Say hello please.' }));
    expect(items).toContainEqual(expect.objectContaining({ kind: 'reasoning', text: 'Thinking about a greeting.' }));
    expect(items).toContainEqual(expect.objectContaining({ kind: 'agent_message', text: 'Hello from fake model.' }));
    expect(events.some((event) => event.type === 'item.delta' && event.kind === 'text')).toBe(true);
    expect(events.find((event) => event.type === 'session.updated')).toMatchObject({ model: 'fake/fake-model' });
    expect(session.nativeSessionId).toMatch(/\.jsonl$/);
  });

  it('runs a bash tool call as a command item with its output', async () => {
    server.enqueue(reply().shell('echo hello-from-tool'), reply().text('The command printed hello-from-tool.'));
    const { session, events, iterator } = await open();
    await session.send('Run a command.');
    await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    const tool = completedItems(events).find((item) => item.kind === 'tool_call');
    expect(tool).toMatchObject({
      kind: 'tool_call',
      status: 'completed',
      tool: { kind: 'command', name: 'bash' },
      input: { command: 'echo hello-from-tool' },
      output: { text: expect.stringContaining('hello-from-tool') },
    });
    expect(events.some((event) => event.type === 'item.started' && event.item.kind === 'tool_call')).toBe(true);
    expect(server.requests.filter((request) => request.scripted)).toHaveLength(2);
  });

  it('reports a failing bash command with its exit code', async () => {
    server.enqueue(reply().shell('exit 3'), reply().text('It failed.'));
    const { session, events, iterator } = await open();
    await session.send('Run a failing command.');
    await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    const tool = completedItems(events).find((item) => item.kind === 'tool_call');
    expect(tool).toMatchObject({ status: 'failed', exitCode: 3 });
  });

  it('runs the write tool as a file_change item and writes the file', async () => {
    server.enqueue(reply().writeFile('written-by-tool.txt', 'written by fake model\n'), reply().text('Wrote it.'));
    const { session, events, iterator } = await open();
    await session.send('Write a file.');
    await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    const tool = completedItems(events).find((item) => item.kind === 'tool_call');
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'file_change', name: 'write' },
      changes: [{ path: 'written-by-tool.txt', kind: 'add' }],
    });
    expect(readFileSync(join(workspace, 'written-by-tool.txt'), 'utf8')).toBe('written by fake model\n');
  });

  it('interrupts a streaming turn: cancelled outcome, session still usable', async () => {
    server.enqueue(reply().text('slow chunk 0. slow chunk 1. slow chunk 2.').stall(), reply().text('After the abort.'));
    const { session, events, iterator } = await open();
    await session.send('Talk slowly.');
    await collectUntil(iterator, events, (event) => event.type === 'item.delta');
    await session.interrupt();
    const first = await collectUntil(iterator, events, isTerminal);
    expect(first).toMatchObject({ outcome: { status: 'cancelled' } });
    await session.send('Are you there?');
    const second = await collectUntil(iterator, events, isTerminal);
    expect(second).toMatchObject({ outcome: { status: 'completed' } });
    assertEventInvariants(events);
    expect(completedItems(events)).toContainEqual(
      expect.objectContaining({ kind: 'agent_message', text: 'After the abort.' }),
    );
  });

  it('steers a running turn with native steer: same turn, the model sees the steer text', async () => {
    server.enqueue(reply().shell('sleep 1; echo slow-tool'), reply().text('Steered answer.'));
    const { session, events, iterator } = await open();
    const first = await session.send('Start a slow command.');
    await collectUntil(iterator, events, (event) => event.type === 'item.started' && event.item.kind === 'tool_call');
    const steered = await session.send('Also mention bananas.', { mode: 'steer' });
    expect(steered).toEqual({ turnId: first.turnId, delivery: 'steered' });
    const done = await collectUntil(iterator, events, isTerminal);
    expect(done).toMatchObject({ turnId: first.turnId, outcome: { status: 'completed' } });
    assertEventInvariants(events);
    const second = server.requests.filter((request) => request.scripted)[1];
    expect(JSON.stringify(second?.body)).toContain('Also mention bananas.');
    expect(completedItems(events)).toContainEqual(
      expect.objectContaining({ kind: 'user_message', text: 'Also mention bananas.' }),
    );
  });

  it('queues a message sent during a turn and runs it as the next turn', async () => {
    server.enqueue(reply().shell('sleep 1; echo first'), reply().text('First done.'), reply().text('Second done.'));
    const { session, events, iterator } = await open();
    const first = await session.send('First task.');
    await collectUntil(iterator, events, (event) => event.type === 'item.started' && event.item.kind === 'tool_call');
    const queued = await session.send('Second task.');
    expect(queued.delivery).toBe('queued');
    await collectUntil(iterator, events, (event) => isTerminal(event) && event.turnId === queued.turnId);
    const terminals = assertEventInvariants(events);
    expect([...terminals.keys()]).toEqual([first.turnId, queued.turnId]);
    expect(server.requests.filter((request) => request.scripted).at(-1)?.userText).toContain('Second task.');
  });

  it('resumes a session in a new process with the earlier conversation', async () => {
    server.enqueue(reply().text('I will remember 42.'));
    const one = await open();
    await one.session.send('Remember the number 42.');
    await collectUntil(one.iterator, one.events, isTerminal);
    const nativeSessionId = one.session.nativeSessionId as string;
    await one.session.close();
    expect(existsSync(nativeSessionId)).toBe(true);

    server.enqueue(reply().text('The number was 42.'));
    const two = await open({ resume: { nativeSessionId } });
    expect(two.session.nativeSessionId).toBe(nativeSessionId);
    await two.session.send('Which number?');
    const done = await collectUntil(two.iterator, two.events, isTerminal);
    expect(done).toMatchObject({ outcome: { status: 'completed' } });
    assertEventInvariants(two.events);
    const body = JSON.stringify(server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(body).toContain('Remember the number 42.');
    expect(body).toContain('I will remember 42.');

    const history = await harness.history?.(nativeSessionId, { cwd: workspace });
    expect(history?.map((item) => item.kind)).toEqual([
      'user_message',
      'agent_message',
      'user_message',
      'agent_message',
    ]);
    const listed = await harness.listSessions?.({ cwd: workspace });
    expect(listed?.map((summary) => summary.nativeSessionId)).toContain(nativeSessionId);
  });

  it('refuses to resume a session file that does not exist', async () => {
    await expect(
      harness.createSession({ cwd: workspace, resume: { nativeSessionId: join(workspace, 'missing.jsonl') } }),
    ).rejects.toMatchObject({ code: 'resume_failed' });
  });

  it('switches the model live; the next request uses it; an unknown model is unsupported', async () => {
    server.enqueue(reply().text('On model two.'));
    const { session, events, iterator } = await open();
    await expect(session.setModel('fake/fake-model-2')).resolves.toEqual({ applied: 'live' });
    await session.send('Which model?');
    await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    expect(server.requests.filter((request) => request.scripted).at(-1)?.model).toBe('fake-model-2');
    expect(events).toContainEqual(expect.objectContaining({ type: 'session.updated', model: 'fake/fake-model-2' }));
    await expect(session.setModel('fake/no-such-model')).rejects.toMatchObject({
      code: 'unsupported_model',
      message: expect.stringContaining('unsupported model'),
    });
  });

  it('fails the turn once after Pi gives up retrying a provider error', async () => {
    for (let attempt = 0; attempt < 3; attempt++) server.enqueue(reply().httpError(500));
    const { session, events, iterator } = await open();
    await session.send('This will fail.');
    const done = await collectUntil(iterator, events, isTerminal, 20_000);
    assertEventInvariants(events);
    expect(done).toMatchObject({
      outcome: { status: 'failed', error: { code: 'provider_error', data: { kind: 'server_error' } } },
    });
    // One initial attempt and maxRetries (2) retries, each its own agent_end, yet exactly one terminal.
    expect(server.requests.filter((request) => request.scripted)).toHaveLength(3);
    expect(events.filter((event) => event.type === 'notice' && event.kind === 'retry').length).toBeGreaterThanOrEqual(
      2,
    );
  });
});
