// The real pinned Pi CLI (0.73.1) driven by the adapter against the scripted model server, inside the
// loopback-only namespace. REINS_RECORD_PI_FIXTURES=1 also writes the stdout frames of each test to
// /tmp/pi-fixtures/<test>.<version>.jsonl (reins/v1, the source of fixtures/*.jsonl).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness, ReinsEvent, SendResult } from '@reins/core';
import {
  assertHermetic,
  assertStreamInvariants,
  fixtureRecorder,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  reply,
  SessionRecorder,
  startModelServer,
  type TempHome,
} from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTestRepo } from '../runtime/checkpoints/test-repo.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createPiHarness } from './adapter.js';

let server: ModelServer;
let home: TempHome;
let harness: Harness;
let workspace: string;
const recorders: SessionRecorder[] = [];
let fixture: ReturnType<typeof fixtureRecorder> | undefined;

/** A price for the fake models, so that Pi reports a cost (USD per million tokens). */
const PRICE = { input: 3, output: 15 };

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
  // Two fake models (one to switch to), priced, with short retries and no hidden SDK retries.
  const launch = await harnessLaunch('pi', {
    modelServerUrl: server.url,
    tempHome: home,
    extraModels: ['fake-model-2'],
    modelPrice: PRICE,
  });
  const binary = launch.binary;
  fixture =
    process.env.REINS_RECORD_PI_FIXTURES === '1'
      ? fixtureRecorder({
          harness: 'pi',
          package: binary.packageName,
          version: binary.version,
          behaviour: context.task.name.replace(/[^a-z0-9]+/gi, '-'),
        })
      : undefined;
  harness = createPiHarness({
    // Pi's CLI is a Node script with a shebang; the home's PATH has the right node first.
    binaryPath: binary.args[0] as string,
    baseEnv: launch.env,
    requestTimeoutMs: 15_000,
    ...(fixture ? { tap: fixture.tap } : {}),
  });
});

afterEach(async () => {
  try {
    // Closing checks each session's stream invariants.
    await SessionRecorder.closeAll(recorders.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await fixture?.saveIn('/tmp/pi-fixtures');
    await home.cleanup();
  }
});

async function open(spec: Partial<Parameters<Harness['createSession']>[0]> = {}) {
  const session = await harness.createSession({ cwd: workspace, model: 'fake/fake-model', ...spec });
  const recorder = new SessionRecorder(session, 30_000);
  recorders.push(recorder);
  return { session, recorder };
}

const isTerminal = (event: ReinsEvent) => event.type === 'turn.completed';
const endOf = (sent: SendResult) => (event: ReinsEvent) => isTerminal(event) && event.turnId === sent.turnId;
const completedItems = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));

describe('pi (real CLI)', () => {
  it('runs a text turn with reasoning, text deltas and usage', async () => {
    server.enqueue(
      reply().reasoning('Thinking about a greeting.').text('Hello from fake model.').usage({ input: 101, output: 20 }),
    );
    const { session, recorder } = await open();
    const sent = await session.send('Say hello please.');
    expect(sent.delivery).toBe('started');
    const done = await recorder.terminalOf(sent);
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
    expect(done).toMatchObject({ type: 'turn.completed', outcome: { status: 'completed' }, stopReason: 'stop' });
    expect(done.usage?.turn).toMatchObject({ input: 101, output: 20 });
    expect(done.usage?.costUsd).toEqual({
      amount: expect.closeTo((101 * PRICE.input + 20 * PRICE.output) / 1e6, 9),
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
    const { session, recorder } = await open();
    await session.send('Run a command.');
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
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
    const { session, recorder } = await open();
    await session.send('Run a failing command.');
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
    const tool = completedItems(events).find((item) => item.kind === 'tool_call');
    expect(tool).toMatchObject({ status: 'failed', exitCode: 3 });
  });

  it('runs the write tool as a file_change item and writes the file', async () => {
    server.enqueue(reply().writeFile('written-by-tool.txt', 'written by fake model\n'), reply().text('Wrote it.'));
    const { session, recorder } = await open();
    await session.send('Write a file.');
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
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
    const { session, recorder } = await open();
    const talk = await session.send('Talk slowly.');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    const first = await recorder.waitFor(isTerminal, 'the first turn.completed');
    expect(first).toMatchObject({ turnId: talk.turnId, outcome: { status: 'cancelled' } });
    const again = await session.send('Are you there?');
    const events = await recorder.collect(endOf(again), 'the second turn.completed');
    expect(events.at(-1)).toMatchObject({ outcome: { status: 'completed' } });
    assertStreamInvariants(events, { settled: true });
    expect(completedItems(events)).toContainEqual(
      expect.objectContaining({ kind: 'agent_message', text: 'After the abort.' }),
    );
  });

  it('steers a running turn with native steer: same turn, the model sees the steer text', async () => {
    server.enqueue(reply().shell('sleep 1; echo slow-tool'), reply().text('Steered answer.'));
    const { session, recorder } = await open();
    const first = await session.send('Start a slow command.');
    await recorder.waitFor((event) => event.type === 'item.started' && event.item.kind === 'tool_call', 'the tool');
    const steered = await session.send('Also mention bananas.', { mode: 'steer' });
    expect(steered).toEqual({ turnId: first.turnId, delivery: 'steered' });
    const events = await recorder.collect(isTerminal, 'turn.completed');
    expect(events.at(-1)).toMatchObject({ turnId: first.turnId, outcome: { status: 'completed' } });
    assertStreamInvariants(events, { settled: true });
    const second = server.requests.filter((request) => request.scripted)[1];
    expect(JSON.stringify(second?.body)).toContain('Also mention bananas.');
    expect(completedItems(events)).toContainEqual(
      expect.objectContaining({ kind: 'user_message', text: 'Also mention bananas.' }),
    );
  });

  it('queues a message sent during a turn and runs it as the next turn', async () => {
    server.enqueue(reply().shell('sleep 1; echo first'), reply().text('First done.'), reply().text('Second done.'));
    const { session, recorder } = await open();
    const first = await session.send('First task.');
    await recorder.waitFor((event) => event.type === 'item.started' && event.item.kind === 'tool_call', 'the tool');
    const queued = await session.send('Second task.');
    expect(queued.delivery).toBe('queued');
    const events = await recorder.collect(endOf(queued), 'the queued turn.completed');
    assertStreamInvariants(events, { settled: true });
    expect(events.filter(isTerminal).map((event) => event.turnId)).toEqual([first.turnId, queued.turnId]);
    expect(server.requests.filter((request) => request.scripted).at(-1)?.userText).toContain('Second task.');
  });

  it('resumes a session in a new process with the earlier conversation', async () => {
    server.enqueue(reply().text('I will remember 42.'));
    const one = await open();
    await one.recorder.turn('Remember the number 42.');
    const nativeSessionId = one.session.nativeSessionId as string;
    await one.recorder.close();
    expect(existsSync(nativeSessionId)).toBe(true);

    server.enqueue(reply().text('The number was 42.'));
    const two = await open({ resume: { nativeSessionId } });
    expect(two.session.nativeSessionId).toBe(nativeSessionId);
    const events = await two.recorder.collect(endOf(await two.session.send('Which number?')), 'turn.completed');
    expect(events.at(-1)).toMatchObject({ outcome: { status: 'completed' } });
    assertStreamInvariants(events, { settled: true });
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

  it('forks a session with --fork: a new session file holding the history, and the two diverge', async () => {
    server.enqueue(reply().text('I will remember 42.'));
    const one = await open();
    await one.recorder.turn('Remember the number 42.');
    const source = one.session.nativeSessionId as string;
    await one.recorder.close();
    const sourceBefore = readFileSync(source, 'utf8');

    server.enqueue(reply().text('The number was 42, in the fork.'));
    const fork = await open({ resume: { nativeSessionId: source, fork: true } });
    const forked = fork.session.nativeSessionId as string;
    expect(forked).toBeTruthy();
    expect(forked).not.toBe(source);
    const events = await fork.recorder.collect(endOf(await fork.session.send('Which number, fork?')), 'turn.completed');
    expect(events.at(-1)).toMatchObject({ outcome: { status: 'completed' } });
    // The fork's first request to the model holds the source's conversation.
    const body = JSON.stringify(server.requests.filter((request) => request.scripted).at(-1)?.body);
    expect(body).toContain('Remember the number 42.');
    expect(body).toContain('I will remember 42.');
    expect(body).toContain('Which number, fork?');
    // Diverged: the fork's turn is in the fork's file only; the source file is as it was.
    expect(readFileSync(forked, 'utf8')).toContain('Which number, fork?');
    expect(readFileSync(source, 'utf8')).toBe(sourceBefore);
    expect((await harness.capabilities()).fork.implemented.state).toBe('yes');
  });

  it('refuses to fork a session file that does not exist', async () => {
    await expect(
      harness.createSession({
        cwd: workspace,
        resume: { nativeSessionId: join(workspace, 'missing.jsonl'), fork: true },
      }),
    ).rejects.toMatchObject({ code: 'resume_failed' });
  });

  it('refuses to resume a session file that does not exist', async () => {
    await expect(
      harness.createSession({ cwd: workspace, resume: { nativeSessionId: join(workspace, 'missing.jsonl') } }),
    ).rejects.toMatchObject({ code: 'resume_failed' });
  });

  it('switches the model live; the next request uses it; an unknown model is unsupported', async () => {
    server.enqueue(reply().text('On model two.'));
    const { session, recorder } = await open();
    await expect(session.setModel('fake/fake-model-2')).resolves.toEqual({ applied: 'live' });
    await session.send('Which model?');
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
    expect(server.requests.filter((request) => request.scripted).at(-1)?.model).toBe('fake-model-2');
    expect(events).toContainEqual(expect.objectContaining({ type: 'session.updated', model: 'fake/fake-model-2' }));
    await expect(session.setModel('fake/no-such-model')).rejects.toMatchObject({
      code: 'unsupported_model',
      message: expect.stringContaining('unsupported model'),
    });
  });

  it('fails the turn once after Pi gives up retrying a provider error', async () => {
    for (let attempt = 0; attempt < 3; attempt++) server.enqueue(reply().httpError(500));
    const { session, recorder } = await open();
    await session.send('This will fail.');
    const events = await recorder.collect(isTerminal, 'turn.completed');
    assertStreamInvariants(events, { settled: true });
    expect(events.at(-1)).toMatchObject({
      outcome: { status: 'failed', error: { code: 'provider_error', data: { kind: 'server_error' } } },
    });
    // One initial attempt and maxRetries (2) retries, each its own agent_end, yet exactly one terminal.
    expect(server.requests.filter((request) => request.scripted)).toHaveLength(3);
    expect(events.filter((event) => event.type === 'notice' && event.kind === 'retry').length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it("checkpoint: a bash command's edit is in the turn's diff; revert restores the bytes and forks the conversation", async () => {
    const repo = makeTestRepo();
    try {
      const userBefore = repo.userState();
      server.enqueue(reply().shell("printf 'changed by a command\\n' > b.txt"), reply().text('Edited.'));
      const { session, recorder } = await open({ cwd: repo.dir, checkpoints: true });
      const sent = await session.send('Change b.txt with a command.');
      expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
      const checkpoint = await recorder.waitFor(
        (event) => event.type === 'checkpoint' && event.turnId === sent.turnId,
        'the checkpoint',
      );
      if (checkpoint.type !== 'checkpoint') throw new Error('not a checkpoint');
      const expected = [
        expect.objectContaining({
          path: 'b.txt',
          kind: 'modified',
          diff: expect.stringContaining('+changed by a command'),
        }),
      ];
      expect(checkpoint.changes).toEqual(expected);
      expect((await session.diff?.(sent.turnId))?.changes).toEqual(expected);
      expect(repo.read('b.txt')).toBe('changed by a command\n');

      // Pi 0.73.1 forks before the turn's message: a new session file, the old one kept whole.
      const original = session.nativeSessionId as string;
      const result = await session.revert?.(sent.turnId);
      expect(result).toEqual({ turnId: sent.turnId, files: ['b.txt'], conversation: 'forked' });
      expect(repo.read('b.txt')).toBe('bravo\n');
      expect(repo.userState()).toEqual(userBefore);
      expect(session.nativeSessionId).toEqual(expect.any(String));
      expect(session.nativeSessionId).not.toBe(original);
      expect(recorder.ofType('session.updated').at(-1)?.nativeSessionId).toBe(session.nativeSessionId);
      expect(readFileSync(original, 'utf8')).toContain('Change b.txt with a command.');
    } finally {
      repo.remove();
    }
  });

  it('compacts on request (RPC compact): one compaction item, and the next turn runs on the summary', async () => {
    const { session, recorder } = await open();
    for (const text of ['Remember the word tangerine.', 'And the word plum.']) {
      server.enqueue(reply().text(`Noted: ${text}`).usage({ input: 200, output: 10 }));
      const sent = await session.send(text);
      expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    }
    // Pi's summary request is a model call of its own: the server's default reply is the summary.
    if (!session.compact) throw new Error('the Pi session has no compact()');
    const compact = await session.compact();
    const done = await recorder.terminalOf(compact);
    expect(done.outcome).toEqual({ status: 'completed' });
    const items = completedItems(recorder.turnEvents(compact.turnId));
    expect(items.filter((item) => item.kind === 'compaction')).toEqual([
      expect.objectContaining({ status: 'completed', trigger: 'manual', preTokens: expect.any(Number) }),
    ]);
    expect(items.filter((item) => item.kind === 'user_message')).toEqual([
      expect.objectContaining({ text: '/compact', origin: 'synthetic' }),
    ]);
    server.enqueue(reply().text('After the compaction.'));
    const next = await session.send('Go on.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    // Pi 0.73.1 puts the summary before the turns it keeps (its recent ones, here all of them).
    const after = JSON.stringify(server.requests.at(-1)?.body);
    expect(after).toContain('The conversation history before this point was compacted into the following summary');
  });
});
