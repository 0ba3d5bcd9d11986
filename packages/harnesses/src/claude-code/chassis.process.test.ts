// Claude Code on the session chassis, against the fake `claude` (harnesses/src/claude-code/testing/fake.mjs)
// replaying recorded frames: the stall watchdog on a turn the CLI accepted and then went silent, the
// late `result` of a turn Reins ended itself (it must not end the next turn), interrupt cancelling
// the running and every queued turn, the closed-session error, every spec field honoured (a fork's
// launch flags too), the user_message with its clientMessageId, a bad cwd, and a background subagent
// replayed from 2.1.332 (its session.status from Claude Code's own session_state_changed).
// (A frame that breaks translation: translation-guard.process.test.ts.)
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReinsEvent, SessionSpec } from '@reins/core';
import { makeTempHome, SessionRecorder, type TempHome } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { type ClaudeCodeHarnessOptions, createClaudeCodeHarness } from './adapter.js';
import type { ClaudeCodeSession } from './session.js';

let temp: TempHome;
beforeAll(async () => {
  temp = await makeTempHome('reins-cc-chassis-');
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

const fixture = (name: string) => join(FIXTURES_DIR, name);

function fakeHarness(knobs: Record<string, string>, options: Partial<ClaudeCodeHarnessOptions> = {}) {
  return createClaudeCodeHarness({
    binaryPath: FAKE_CLAUDE,
    baseEnv: {
      PATH: process.env.PATH,
      HOME: temp.home,
      TMPDIR: temp.tmp,
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: fixture('queued-follow-up.2.1.197.jsonl'),
      ...knobs,
    },
    requestTimeoutMs: 10_000,
    ...options,
  });
}

async function open(
  knobs: Record<string, string> = {},
  spec: Partial<SessionSpec> = {},
  options: Partial<ClaudeCodeHarnessOptions> = {},
) {
  const session = await fakeHarness(knobs, options).createSession({ cwd: temp.dir, ...spec });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

const agentText = (events: ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

describe('claude-code on the chassis (fake CLI)', () => {
  test('a turn the CLI accepted and then left silent ends by the stall watchdog; its late result ends nothing', async () => {
    const { session, recorder } = await open(
      { FAKE_CLAUDE_SILENT_TURN: '1', FAKE_CLAUDE_LATE_RESULT_MS: '300' },
      { stallTimeoutMs: 400 },
    );
    const stalled = await session.send('First question');
    const failed = await recorder.terminalOf(stalled);
    expect(failed.outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    // The CLI's result for the stalled turn comes later: the next turn ends only with its own.
    const next = await session.send('Second question');
    const done = await recorder.terminalOf(next);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(next.turnId))).toEqual(['First answer, slowly.']);
    const late = recorder.events.find((event) => event.type === 'notice' && event.native?.method?.startsWith('result'));
    expect(late).toMatchObject({ turnId: null, message: expect.stringContaining(stalled.turnId) });
    expect(
      recorder.events.filter((event) => event.type === 'passthrough' && event.native?.method?.startsWith('result')),
    ).toEqual([]);
    await recorder.close();
  });

  test('a stalled turn whose result never comes: the next turn (its own system/init) still ends with its result', async () => {
    const { session, recorder } = await open(
      { FAKE_CLAUDE_SILENT_TURN: '1', FAKE_CLAUDE_LATE_RESULT_MS: 'never' },
      { stallTimeoutMs: 400 },
    );
    const stalled = await session.send('First question');
    expect((await recorder.terminalOf(stalled)).outcome.status).toBe('failed');
    const next = await session.send('Second question');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(next.turnId))).toEqual(['First answer, slowly.']);
    await recorder.close();
  });

  test('interrupt ends the running turn and every queued turn cancelled, each with one terminal; only one reached the CLI', async () => {
    const sent: string[] = [];
    const { session, recorder } = await open(
      { FAKE_CLAUDE_SILENT_TURN: '1' },
      {},
      { tap: (direction, text) => direction === 'in' && sent.push(text) },
    );
    const first = await session.send('First question');
    const second = await session.send('Second question', { clientMessageId: 'c-2' });
    const third = await session.send('Third question');
    expect([first.delivery, second.delivery, third.delivery]).toEqual(['started', 'queued', 'queued']);
    await recorder.waitFor((event) => event.native?.method === 'system/init', 'the CLI to accept the turn');
    await session.interrupt();
    for (const turn of [first, second, third]) {
      expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'cancelled' });
    }
    const terminals = recorder.ofType('turn.completed').map((event) => event.turnId);
    expect(terminals).toEqual([first.turnId, second.turnId, third.turnId]);
    expect(recorder.turnEvents(second.turnId).find((event) => event.type === 'item.completed')).toMatchObject({
      item: { kind: 'user_message', status: 'cancelled', clientMessageId: 'c-2' },
    });
    const users = sent.map((line) => JSON.parse(line)).filter((frame) => frame.type === 'user');
    expect(users.map((frame) => frame.message.content)).toEqual(['First question']);
    // The session goes on.
    const fourth = await session.send('Fourth question');
    expect((await recorder.terminalOf(fourth)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
  });

  test('no result within the interrupt grace: Reins ends the turn, and the late result does not end the next one', async () => {
    const { session, recorder } = await open(
      { FAKE_CLAUDE_SILENT_TURN: '1', FAKE_CLAUDE_LATE_RESULT_MS: '600' },
      {},
      { interruptGraceMs: 150 },
    );
    const first = await session.send('First question');
    await recorder.waitFor((event) => event.native?.method === 'system/init', 'the CLI to accept the turn');
    await session.interrupt();
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'cancelled' });
    const next = await session.send('Second question');
    const done = await recorder.terminalOf(next);
    expect(done.outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(next.turnId))).toEqual(['First answer, slowly.']);
    await recorder.close();
  });

  test('every turn has one user_message with the caller clientMessageId; none echoed from the CLI', async () => {
    const { session, recorder } = await open();
    const turn = await session.send('First question', { clientMessageId: 'client-1' });
    await recorder.terminalOf(turn);
    const messages = recorder
      .turnEvents(turn.turnId)
      .filter((event) => event.type === 'item.completed' && event.item.kind === 'user_message');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ item: { text: 'First question', clientMessageId: 'client-1' } });
    await recorder.close();
  });

  test('after close every call gets the one closed-session error', async () => {
    const { session, recorder } = await open();
    await recorder.close();
    const closed = { code: 'invalid_input', data: { reason: 'session_closed' } };
    await expect(session.send('again')).rejects.toMatchObject(closed);
    await expect(session.setModel('haiku')).rejects.toMatchObject(closed);
    await expect(session.setEffort('high')).rejects.toMatchObject(closed);
    await expect(session.close()).resolves.toBeUndefined();
  });

  test('every spec field is honoured: it reaches the CLI launch or its initialize', async () => {
    const argvFile = join(temp.dir, 'argv.json');
    const sent: string[] = [];
    const { session, recorder } = await open(
      { FAKE_CLAUDE_ARGV_FILE: argvFile },
      {
        model: 'claude-sonnet-4-5',
        effort: 'high',
        posture: 'ask',
        ephemeral: true,
        allowedTools: ['Bash(echo:*)'],
        systemPrompt: { append: 'Answer briefly.' },
        mcpServers: [{ name: 'files', transport: 'stdio', command: 'true' }],
        stallTimeoutMs: 60_000,
        env: { REINS_TEST_MARKER: '1' },
      },
      { tap: (direction, text) => direction === 'in' && sent.push(text) },
    );
    const argv = JSON.parse(await readFile(argvFile, 'utf8')) as string[];
    // The Agent SDK writes `--flag=value`, and `--mcp-config value`.
    const after = (flag: string) =>
      argv.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1) ?? argv[argv.indexOf(flag) + 1];
    expect(after('--model')).toBe('claude-sonnet-4-5');
    expect(after('--effort')).toBe('high');
    expect(after('--permission-mode')).toBe('default');
    expect(after('--permission-prompt-tool')).toBe('stdio');
    expect(argv).toContain('--no-session-persistence');
    expect(after('--allowedTools')).toContain('Bash(echo:*)');
    expect(after('--mcp-config')).toContain('"files"');
    const initialize = sent.map((line) => JSON.parse(line)).find((frame) => frame.request?.subtype === 'initialize');
    expect(JSON.stringify(initialize.request)).toContain('Answer briefly.');
    await recorder.close();
    void session;
  });

  test('a fork launches --resume SOURCE --fork-session --session-id NEW, and reports NEW as its id', async () => {
    const argvFile = join(temp.dir, 'argv-fork.json');
    const source = '11111111-2222-4333-8444-555555555555';
    const { session, recorder } = await open(
      { FAKE_CLAUDE_ARGV_FILE: argvFile },
      { resume: { nativeSessionId: source, fork: true } },
    );
    const argv = JSON.parse(await readFile(argvFile, 'utf8')) as string[];
    const after = (flag: string) =>
      argv.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1) ?? argv[argv.indexOf(flag) + 1];
    expect(after('--resume')).toBe(source);
    expect(argv).toContain('--fork-session');
    const forkId = session.nativeSessionId as string;
    expect(forkId).not.toBe(source);
    expect(after('--session-id')).toBe(forkId);
    expect(recorder.events.find((event) => event.type === 'session.updated')).toMatchObject({
      nativeSessionId: forkId,
    });
    await recorder.close();
  });

  test('a cwd that does not exist or is not a directory is invalid_input naming the path', async () => {
    const harness = fakeHarness({});
    await expect(harness.createSession({ cwd: '/does/not/exist' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('/does/not/exist'),
    });
    const file = join(temp.dir, 'a-file');
    await writeFile(file, 'x');
    await expect(harness.createSession({ cwd: file })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { field: 'cwd', cwd: file },
    });
    expect(liveProcessCount()).toBe(0);
  });

  test('2.1.332 background subagent replayed: the Task outlives its turn, the reply Claude Code starts itself is a turn of its own', async () => {
    const { session, recorder } = await open({
      FAKE_CLAUDE_FIXTURE: fixture('background-subagent.2.1.332.jsonl'),
      FAKE_CLAUDE_AFTER_RESULT: '1',
    });
    const turn = await session.send('Delegate please');
    await recorder.terminalOf(turn);
    const own = await recorder.waitFor(
      (event) => event.type === 'turn.started' && event.turnId !== turn.turnId,
      'the turn Claude Code starts',
    );
    const ownDone = await recorder.terminalOf({ turnId: own.turnId ?? '' });
    expect(ownDone.outcome).toEqual({ status: 'completed' });
    await recorder.waitFor((event) => event.type === 'session.status' && event.seq > ownDone.seq, 'the last status');
    const events = recorder.events;
    const task = events.find((event) => event.type === 'item.completed' && event.item.id === 'toolu_scripted_1');
    expect(task).toMatchObject({ turnId: null, item: { status: 'completed' } });
    expect(task && task.seq > (events.find((event) => event.type === 'turn.completed')?.seq ?? 0)).toBe(true);
    const shell = events.find((event) => event.type === 'item.completed' && event.item.id === 'toolu_scripted_4');
    expect(shell).toMatchObject({ turnId: null, parentItemId: 'toolu_scripted_1', item: { status: 'completed' } });
    expect(events.filter((event) => event.type === 'item.completed' && event.item.status === 'cancelled')).toEqual([]);
    expect(
      recorder
        .turnEvents(own.turnId ?? '')
        .find((event) => event.type === 'item.completed' && event.item.kind === 'user_message'),
    ).toMatchObject({ item: { origin: 'notification', text: expect.stringContaining('"Inspect folder" completed') } });
    expect(
      events.filter((event) => event.type === 'passthrough' && event.native?.method?.startsWith('result')),
    ).toEqual([]);
    expect((session as unknown as ClaudeCodeSession).liveBackgroundTasks).toBe(0);
    // The status is Claude Code's own (session_state_changed, handed on through the real Agent SDK by
    // the process bridge): running past the first result, idle only after the turn it started itself.
    const statuses = events.filter((event) => event.type === 'session.status');
    expect(statuses.map((event) => [event.status, event.native?.method])).toEqual([
      ['running', undefined],
      ['running', 'system/session_state_changed'],
      ['idle', 'system/session_state_changed'],
    ]);
    expect(statuses.at(-1)?.seq).toBeGreaterThan(ownDone.seq);
    await recorder.close();
  });
});
