// Reins event sequences -> Codex app-server notifications, without a process. The events are made by
// a real SessionEventStream (the envelope, seq and the closing of open items are the ones adapters
// produce), fed through translateEvent, and the notifications checked as a Codex client reads them.
import { type EventPayload, type ReinsEvent, SessionEventStream, type TurnOutcome } from '@reins/core';
import { describe, expect, it } from 'vitest';
import {
  beginSteer,
  codexErrorInfoOf,
  createThreadState,
  endSteer,
  historyTurns,
  requestInterrupt,
  type ThreadState,
  threadItemOf,
  tokenUsageOf,
  translateEvent,
  turnErrorOf,
} from './translate.js';
import type { BridgeNotification } from './wire.js';

const THREAD = 'thread-1';

/** A Reins session's stream and the Codex notifications its events became. */
function harness() {
  const sent: BridgeNotification[] = [];
  const state: ThreadState = createThreadState({ threadId: THREAD, cwd: '/work' });
  let clock = 1_000_000;
  const stream = new SessionEventStream({
    harness: 'claude-code',
    sessionId: 'rs_1',
    now: () => (clock += 10),
    onEvent: (event: ReinsEvent) => sent.push(...translateEvent(state, event)),
  });
  return {
    state,
    sent,
    stream,
    emit: (payload: EventPayload, parentItemId?: string) => stream.emit(payload, parentItemId ? { parentItemId } : {}),
    complete: (outcome: TurnOutcome, extra: Record<string, unknown> = {}) => stream.completeTurn({ outcome, ...extra }),
    methods: () => sent.map((notification) => notification.method),
    of: <M extends BridgeNotification['method']>(method: M) =>
      sent.filter(
        (notification): notification is Extract<BridgeNotification, { method: M }> => notification.method === method,
      ),
  };
}

describe('a text turn', () => {
  it('streams deltas and completes the message once with the whole text and its times', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Say hello' });
    h.emit({ type: 'item.started', item: { kind: 'user_message', id: 'u1', status: 'running', text: 'Say hello' } });
    h.emit({
      type: 'item.completed',
      item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Say hello' },
    });
    h.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } });
    h.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'Hello ' });
    h.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'there.' });
    h.emit({
      type: 'item.completed',
      item: { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Hello there.' },
    });
    h.complete({ status: 'completed' });

    expect(h.methods()).toEqual([
      'turn/started',
      'item/started',
      'item/completed',
      'item/started',
      'item/agentMessage/delta',
      'item/agentMessage/delta',
      'item/completed',
      'turn/completed',
    ]);
    const [started] = h.of('turn/started');
    expect(started?.params).toMatchObject({
      threadId: THREAD,
      turn: { id: 'turn_1', status: 'inProgress', error: null },
    });
    const deltas = h.of('item/agentMessage/delta').map((n) => n.params);
    expect(deltas.every((delta) => delta.turnId === 'turn_1' && delta.itemId === 'm1')).toBe(true);
    expect(deltas.map((delta) => delta.delta).join('')).toBe('Hello there.');
    const completed = h.of('item/completed').map((n) => n.params.item);
    expect(completed[0]).toMatchObject({
      type: 'userMessage',
      content: [{ type: 'text', text: 'Say hello', text_elements: [] }],
    });
    // The text is in the completed item exactly once; Codex clients read completedAtMs as "done".
    expect(completed[1]).toEqual({
      type: 'agentMessage',
      id: 'm1',
      text: 'Hello there.',
      moderation: null,
      phase: null,
      memoryCitation: null,
      delivery: null,
      questions: null,
      startedAtMs: expect.any(Number),
      completedAtMs: expect.any(Number),
    });
    const itemStarted = h.of('item/started')[1]?.params.item;
    expect(itemStarted).toMatchObject({ type: 'agentMessage', text: '', completedAtMs: null });
    const [done] = h.of('turn/completed');
    expect(done?.params.turn).toMatchObject({ id: 'turn_1', status: 'completed', error: null, itemsView: 'notLoaded' });
    expect(done?.params.turn.durationMs).toBeGreaterThan(0);
    expect(h.state.turn).toBeUndefined();
  });

  it('maps reasoning to a reasoning item with its text as content and deltas as textDelta', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Think' });
    h.emit({ type: 'item.started', item: { kind: 'reasoning', id: 'r1', status: 'running', text: '' } });
    h.emit({ type: 'item.delta', itemId: 'r1', kind: 'reasoning', text: 'Hmm.' });
    h.emit({
      type: 'item.completed',
      item: { kind: 'reasoning', id: 'r1', status: 'completed', text: 'Hmm.', summary: 'Thought' },
    });
    h.complete({ status: 'completed' });
    expect(h.of('item/reasoning/textDelta')[0]?.params).toMatchObject({ delta: 'Hmm.', contentIndex: 0 });
    expect(h.of('item/completed')[0]?.params.item).toMatchObject({
      type: 'reasoning',
      summary: ['Thought'],
      content: ['Hmm.'],
    });
  });
});

describe('tools', () => {
  it('a command streams its output and completes with command, cwd, output and exit code', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Run it' });
    const tool = { kind: 'command' as const, name: 'Bash', title: 'ls /nope' };
    h.emit({ type: 'item.started', item: { kind: 'tool_call', id: 't1', status: 'running', tool, input: {} } });
    h.emit({ type: 'item.delta', itemId: 't1', kind: 'tool_output', text: 'ls: cannot access ' });
    h.emit({ type: 'item.delta', itemId: 't1', kind: 'tool_output', text: "'/nope'\n" });
    h.emit({
      type: 'item.completed',
      item: { kind: 'tool_call', id: 't1', status: 'failed', tool, input: { command: 'ls /nope' }, exitCode: 2 },
    });
    h.complete({ status: 'completed' });
    expect(h.of('item/commandExecution/outputDelta').map((n) => n.params.delta)).toEqual([
      'ls: cannot access ',
      "'/nope'\n",
    ]);
    // Before the input is known the command is named by the tool's title.
    expect(h.of('item/started')[0]?.params.item).toMatchObject({ type: 'commandExecution', command: 'ls /nope' });
    expect(h.of('item/completed')[0]?.params.item).toMatchObject({
      type: 'commandExecution',
      id: 't1',
      command: 'ls /nope',
      cwd: '/work',
      status: 'failed',
      // The completed item carried no output text: what streamed is the output.
      aggregatedOutput: "ls: cannot access '/nope'\n",
      exitCode: 2,
      source: 'agent',
    });
  });

  it('a command without an exit code says null, not 0', () => {
    const item = threadItemOf(
      {
        kind: 'tool_call',
        id: 't',
        status: 'completed',
        tool: { kind: 'command', name: 'exec_command' },
        input: { cmd: ['echo', 'hi'], cwd: '/elsewhere' },
        output: { text: 'hi\n' },
      },
      { threadId: THREAD, cwd: '/work' },
    );
    expect(item).toMatchObject({ command: 'echo hi', cwd: '/elsewhere', aggregatedOutput: 'hi\n', exitCode: null });
  });

  it('a file change lists its changes with kinds and diffs (an empty diff where none was reported)', () => {
    const item = threadItemOf(
      {
        kind: 'tool_call',
        id: 'f1',
        status: 'completed',
        tool: { kind: 'file_change', name: 'Edit' },
        input: {},
        changes: [
          { path: '/work/new.txt', kind: 'add', diff: 'hello\n' },
          { path: '/work/a.ts', kind: 'update', diff: '@@ -1 +1 @@\n-a\n+b\n' },
          { path: '/work/old.ts', kind: 'move', movePath: '/work/moved.ts' },
          { path: '/work/gone.ts', kind: 'delete' },
        ],
      },
      { threadId: THREAD, cwd: '/work' },
    );
    expect(item).toEqual({
      type: 'fileChange',
      id: 'f1',
      status: 'completed',
      changes: [
        { path: '/work/new.txt', kind: { type: 'add' }, diff: 'hello\n' },
        { path: '/work/a.ts', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-a\n+b\n' },
        { path: '/work/old.ts', kind: { type: 'update', move_path: '/work/moved.ts' }, diff: '' },
        { path: '/work/gone.ts', kind: { type: 'delete' }, diff: '' },
      ],
    });
  });

  it('an MCP tool is an mcpToolCall with server and tool from its name, and its result', () => {
    const item = threadItemOf(
      {
        kind: 'tool_call',
        id: 'm',
        status: 'completed',
        tool: { kind: 'mcp', name: 'mcp__echo__say' },
        input: { text: 'ping' },
        output: { text: 'echo: ping', structured: { ok: true } },
      },
      { threadId: THREAD, cwd: '/work' },
    );
    expect(item).toMatchObject({
      type: 'mcpToolCall',
      server: 'echo',
      tool: 'say',
      status: 'completed',
      arguments: { text: 'ping' },
      result: { content: [{ type: 'text', text: 'echo: ping' }], structuredContent: { ok: true } },
      error: null,
    });
  });

  it('any other tool is a dynamicToolCall; a declined one failed', () => {
    const item = threadItemOf(
      {
        kind: 'tool_call',
        id: 'o',
        status: 'declined',
        tool: { kind: 'other', name: 'WebFetch' },
        input: { url: 'http://127.0.0.1/' },
      },
      { threadId: THREAD, cwd: '/work' },
    );
    expect(item).toMatchObject({ type: 'dynamicToolCall', tool: 'WebFetch', status: 'failed', success: false });
  });

  it("a subagent is a collabAgentToolCall, and the subagent's own items go to its child thread", () => {
    const h = harness();
    h.stream.startTurn({ text: 'Delegate' });
    const task = { kind: 'subagent' as const, name: 'Task' };
    h.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 'task1', status: 'running', tool: task, input: { prompt: 'Look around' } },
    });
    h.emit(
      { type: 'item.started', item: { kind: 'agent_message', id: 'sub-m', status: 'running', text: '' } },
      'task1',
    );
    h.emit({ type: 'item.delta', itemId: 'sub-m', kind: 'text', text: 'Found it.' }, 'task1');
    h.emit(
      { type: 'item.completed', item: { kind: 'agent_message', id: 'sub-m', status: 'completed', text: 'Found it.' } },
      'task1',
    );
    h.emit({
      type: 'item.completed',
      item: {
        kind: 'tool_call',
        id: 'task1',
        status: 'completed',
        tool: task,
        input: { prompt: 'Look around' },
        output: { text: 'Found it.' },
      },
    });
    h.complete({ status: 'completed' });
    const child = `${THREAD}:subagent:task1`;
    expect(h.of('item/started')[0]?.params.item).toMatchObject({
      type: 'collabAgentToolCall',
      tool: 'spawnAgent',
      senderThreadId: THREAD,
      receiverThreadIds: [child],
      prompt: 'Look around',
    });
    expect(h.of('item/agentMessage/delta')[0]?.params.threadId).toBe(child);
    const completed = h.of('item/completed');
    expect(completed[0]?.params).toMatchObject({ threadId: child, item: { type: 'agentMessage', text: 'Found it.' } });
    expect(completed[1]?.params.item).toMatchObject({
      type: 'collabAgentToolCall',
      status: 'completed',
      agentsStates: { [child]: { status: 'completed', message: 'Found it.' } },
    });
  });

  it('a plan with statuses is the turn plan, sent whole and only when it changed', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Plan' });
    const entries = [
      { text: 'Read', status: 'completed' as const },
      { text: 'Write', status: 'in_progress' as const },
    ];
    h.emit({ type: 'item.started', item: { kind: 'plan', id: 'p', status: 'running', entries } });
    h.emit({ type: 'item.completed', item: { kind: 'plan', id: 'p', status: 'completed', entries } });
    h.complete({ status: 'completed' });
    expect(h.of('turn/plan/updated').map((n) => n.params)).toEqual([
      {
        threadId: THREAD,
        turnId: 'turn_1',
        explanation: null,
        plan: [
          { step: 'Read', status: 'completed' },
          { step: 'Write', status: 'inProgress' },
        ],
      },
    ]);
  });
});

describe('failed and cancelled turns', () => {
  it('a failed turn ends failed with the error mapped onto codexErrorInfo; open text items get no item/completed', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Hello?' });
    h.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } });
    h.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'Partial' });
    h.complete({
      status: 'failed',
      error: { code: 'unsupported_model', message: 'unsupported model "x": not found', data: { model: 'x' } },
    });
    expect(h.methods()).toEqual(['turn/started', 'item/started', 'item/agentMessage/delta', 'turn/completed']);
    const turn = h.of('turn/completed')[0]?.params.turn;
    expect(turn?.status).toBe('failed');
    expect(turn?.error).toEqual({
      message: 'unsupported model "x": not found',
      codexErrorInfo: 'modelNotFound',
      additionalDetails: JSON.stringify({ reins: { code: 'unsupported_model', data: { model: 'x' } } }),
      misalignment: null,
    });
  });

  it('maps Reins error kinds onto Codex ones, and everything else onto other', () => {
    const provider = (kind: string) => codexErrorInfoOf({ code: 'provider_error', message: 'm', data: { kind } });
    expect(provider('rate_limited')).toBe('rateLimitExceeded');
    expect(provider('overloaded')).toBe('serverOverloaded');
    expect(provider('server_error')).toBe('internalServerError');
    expect(provider('context_window_exceeded')).toBe('contextWindowExceeded');
    expect(provider('bad_request')).toBe('badRequest');
    expect(provider('connection_failed')).toEqual({ httpConnectionFailed: { httpStatusCode: null } });
    expect(provider('unknown')).toBe('other');
    expect(codexErrorInfoOf({ code: 'auth_required', message: 'log in' })).toBe('unauthorized');
    expect(codexErrorInfoOf({ code: 'structured_output_invalid', message: 'no' })).toBe('other');
    expect(codexErrorInfoOf({ code: 'timeout', message: 'slow' })).toBe('other');
    expect(turnErrorOf({ code: 'timeout', message: 'slow', retryable: true }).additionalDetails).toBe(
      '{"reins":{"code":"timeout","retryable":true}}',
    );
  });

  it('an interrupted turn ends interrupted, and the tool it cut off gets no item/completed', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Sleep' });
    const tool = { kind: 'command' as const, name: 'Bash' };
    h.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't1', status: 'running', tool, input: { command: 'sleep 60' } },
    });
    expect(requestInterrupt(h.state, 'turn_1')).toBe(true);
    expect(requestInterrupt(h.state, 'turn_9')).toBe(false);
    h.complete({ status: 'cancelled' });
    expect(h.methods()).toEqual(['turn/started', 'item/started', 'turn/completed']);
    expect(h.of('turn/completed')[0]?.params.turn).toMatchObject({ status: 'interrupted', error: null });
  });

  it('the session ending with a steered turn still pending ends the Codex turn, then closes the thread', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    expect(beginSteer(h.state)).toBe('turn_1');
    h.complete({ status: 'completed' });
    expect(h.methods()).toEqual(['turn/started']);
    h.stream.close('process_exited', { code: 'process_exited', message: 'gone' });
    expect(h.methods()).toEqual(['turn/started', 'turn/completed', 'thread/closed']);
  });
});

describe('usage', () => {
  it('sends the counts the harness reported and leaves the others out (absent is not zero)', () => {
    expect(tokenUsageOf({ total: { input: 120, output: 9 }, context: { used: 120, window: 200_000 } })).toEqual({
      total: { inputTokens: 120, outputTokens: 9 },
      last: { totalTokens: 120 },
      modelContextWindow: 200_000,
    });
    const full = tokenUsageOf({
      total: { input: 10, cachedInput: 2, cacheWrite: 1, output: 5, reasoning: 3, total: 15 },
    });
    expect(full).toEqual({
      total: {
        totalTokens: 15,
        inputTokens: 10,
        cachedInputTokens: 2,
        cacheWriteInputTokens: 1,
        outputTokens: 5,
        reasoningOutputTokens: 3,
      },
      last: {},
      modelContextWindow: null,
    });
  });

  it('goes out as thread/tokenUsage/updated for the turn, once per change; usage with no total or context sends none', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Count' });
    h.emit({ type: 'usage.updated', turn: { input: 5 } });
    expect(h.of('thread/tokenUsage/updated')).toEqual([]);
    const usage = { total: { input: 7, output: 2 }, context: { used: 7 } };
    h.emit({ type: 'usage.updated', ...usage });
    h.complete({ status: 'completed' }, { usage });
    const sent = h.of('thread/tokenUsage/updated');
    expect(sent.map((n) => n.params)).toEqual([
      {
        threadId: THREAD,
        turnId: 'turn_1',
        tokenUsage: { total: { inputTokens: 7, outputTokens: 2 }, last: { totalTokens: 7 }, modelContextWindow: null },
      },
    ]);
    expect('cachedInputTokens' in (sent[0]?.params.tokenUsage.total ?? {})).toBe(false);
  });
});

describe('steered input on a harness that queues it', () => {
  it('runs inside the same Codex turn: one turn/started, one turn/completed after the last input', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'a1', status: 'completed', text: 'One.' } });
    const codexTurn = beginSteer(h.state) as string;
    h.complete({ status: 'completed' });
    // send() answered: the harness queued the input as its next turn, which has already begun.
    h.stream.startTurn({ text: 'Second' });
    expect(endSteer(h.state, codexTurn, { turnId: 'turn_2', delivery: 'queued' }, 0)).toEqual([]);
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'a2', status: 'completed', text: 'Two.' } });
    h.complete({ status: 'completed' });
    expect(h.methods()).toEqual(['turn/started', 'item/completed', 'item/completed', 'turn/completed']);
    expect(h.of('item/completed').map((n) => n.params.turnId)).toEqual(['turn_1', 'turn_1']);
    expect(h.of('turn/completed')[0]?.params.turn).toMatchObject({ id: 'turn_1', status: 'completed' });
  });

  it('a queued input that has not started holds the turn open; a failure before it is told as an error', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    const codexTurn = beginSteer(h.state) as string;
    expect(endSteer(h.state, codexTurn, { turnId: 'turn_2', delivery: 'queued' }, 0)).toEqual([]);
    h.complete({
      status: 'failed',
      error: { code: 'provider_error', message: 'boom', data: { kind: 'server_error' } },
    });
    expect(h.methods()).toEqual(['turn/started', 'error']);
    expect(h.of('error')[0]?.params).toMatchObject({ willRetry: false, turnId: 'turn_1', error: { message: 'boom' } });
    h.stream.startTurn({ text: 'Second' });
    h.complete({ status: 'completed' });
    expect(h.methods()).toEqual(['turn/started', 'error', 'turn/completed']);
    expect(h.of('turn/completed')[0]?.params.turn.status).toBe('completed');
  });

  it('a steer the harness took into its turn ends with that turn; if the turn ended while send() ran, endSteer ends it', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    const codexTurn = beginSteer(h.state) as string;
    h.complete({ status: 'completed' });
    expect(h.methods()).toEqual(['turn/started']);
    const flushed = endSteer(h.state, codexTurn, { turnId: 'turn_1', delivery: 'steered' }, 5);
    expect(flushed.map((n) => n.method)).toEqual(['turn/completed']);
    expect(h.state.turn).toBeUndefined();
  });
});

describe('structured output', () => {
  it('becomes the final agent message when the harness returned it out of band', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Verdict?' });
    h.complete({ status: 'completed' }, { structuredOutput: { verdict: 'pass' } });
    expect(h.methods()).toEqual(['turn/started', 'item/started', 'item/completed', 'turn/completed']);
    expect(h.of('item/completed')[0]?.params.item).toMatchObject({
      type: 'agentMessage',
      id: 'turn_1-structured-output',
      text: '{"verdict":"pass"}',
    });
  });

  it('is not repeated when the last agent message already says it', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Verdict?' });
    h.emit({
      type: 'item.completed',
      item: { kind: 'agent_message', id: 'm', status: 'completed', text: '{ "verdict": "pass" }' },
    });
    h.complete({ status: 'completed' }, { structuredOutput: { verdict: 'pass' } });
    expect(h.of('item/completed')).toHaveLength(1);
  });
});

describe('everything else', () => {
  it('mirrors status, title and closing; drops passthrough, items outside a turn and info notices', () => {
    const h = harness();
    h.emit({
      type: 'item.completed',
      item: { kind: 'user_message', id: 'old', status: 'completed', text: 'replayed', replay: true },
    });
    h.emit({ type: 'passthrough', frame: { some: 'frame' } });
    h.emit({ type: 'notice', kind: 'info', message: 'fyi' });
    h.emit({ type: 'session.updated', title: 'My thread' });
    h.emit({ type: 'session.updated', title: 'My thread' });
    h.emit({ type: 'session.status', status: 'requires_action' });
    h.emit({ type: 'notice', kind: 'warning', message: 'careful' });
    h.emit({ type: 'error', code: 'protocol_error', message: 'odd frame', fatal: false });
    h.stream.close('requested');
    expect(h.sent).toEqual([
      { method: 'thread/name/updated', params: { threadId: THREAD, threadName: 'My thread' } },
      {
        method: 'thread/status/changed',
        params: { threadId: THREAD, status: { type: 'active', activeFlags: ['waitingOnApproval'] } },
      },
      { method: 'warning', params: { threadId: THREAD, message: 'careful' } },
      // No turn yet: Codex's error notification needs one, so the words go as a warning.
      { method: 'warning', params: { threadId: THREAD, message: 'odd frame' } },
      { method: 'thread/closed', params: { threadId: THREAD } },
    ]);
  });

  it('groups stored history into turns, one per user message', () => {
    const turns = historyTurns(
      [
        { kind: 'user_message', id: 'u1', status: 'completed', text: 'Remember ZEBRA' },
        { kind: 'agent_message', id: 'a1', status: 'completed', text: 'Noted.' },
        { kind: 'user_message', id: 'u2', status: 'completed', text: 'Which word?' },
        { kind: 'agent_message', id: 'a2', status: 'completed', text: 'ZEBRA.' },
      ],
      { threadId: THREAD, cwd: '/work' },
    );
    expect(turns.map((turn) => [turn.id, turn.items.map((item) => item.type)])).toEqual([
      ['history-1', ['userMessage', 'agentMessage']],
      ['history-2', ['userMessage', 'agentMessage']],
    ]);
  });
});
