// Reins event sequences -> Codex app-server notifications, without a process. The events are made by
// a real SessionEventStream (the envelope, seq and the closing of open items are the ones adapters
// produce), fed through translateSafely, and the notifications checked as a Codex client reads them:
// every one of them also against the pinned Codex's own JSON Schema.
import { type EventPayload, type ReinsEvent, SessionEventStream, type TurnOutcome } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { codexSchema } from '../../test/support/codex-schema.js';
import { type CompletedItemsView, createThreadState, type ThreadState } from './state.js';
import { type TranslationFault, translateSafely } from './translate.js';
import { beginSteer, endSteer, requestInterrupt } from './turns.js';
import type { BridgeNotification } from './wire.js';

const THREAD = 'thread-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A Reins session's stream and the Codex notifications its events became. */
function harness(options: { itemsView?: CompletedItemsView; fresh?: boolean; tick?: number } = {}) {
  const sent: BridgeNotification[] = [];
  const faults: TranslationFault[] = [];
  const state: ThreadState = createThreadState({ threadId: THREAD, cwd: '/work', ...options });
  let clock = 1_000_000;
  const stream = new SessionEventStream({
    harness: 'claude-code',
    sessionId: 'rs_1',
    now: () => (clock += options.tick ?? 10),
    onEvent: (event: ReinsEvent) => sent.push(...translateSafely(state, event, (fault) => faults.push(fault))),
  });
  const of = <M extends BridgeNotification['method']>(method: M) =>
    sent.filter(
      (notification): notification is Extract<BridgeNotification, { method: M }> => notification.method === method,
    );
  return {
    state,
    sent,
    faults,
    stream,
    emit: (payload: EventPayload, parentItemId?: string) => stream.emit(payload, parentItemId ? { parentItemId } : {}),
    complete: (outcome: TurnOutcome, extra: Record<string, unknown> = {}) => stream.completeTurn({ outcome, ...extra }),
    methods: () => sent.map((notification) => notification.method),
    of,
    /** The id of the Codex turn that started last. */
    turnId: () => of('turn/started').at(-1)?.params.turn.id as string,
  };
}

/** Every notification validates against the pinned Codex's schema. */
function expectValid(sent: BridgeNotification[]): void {
  const schema = codexSchema();
  const broken = sent.flatMap((notification) => {
    const errors = schema.notification(notification);
    return errors ? [`${notification.method}: ${errors}`] : [];
  });
  expect(broken).toEqual([]);
}

const userMessage = (id: string, text: string, status: 'running' | 'completed') =>
  ({ kind: 'user_message', id, status, text }) as const;

describe('a text turn', () => {
  it('opens with the userMessage, streams deltas, completes the message once, and ends with it as the summary', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Say hello' });
    h.emit({ type: 'item.started', item: userMessage('u1', 'Say hello', 'running') });
    h.emit({ type: 'item.completed', item: userMessage('u1', 'Say hello', 'completed') });
    h.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } });
    h.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'Hello ' });
    h.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'there.' });
    h.emit({
      type: 'item.completed',
      item: { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Hello there.' },
    });
    h.complete({ status: 'completed' });

    expectValid(h.sent);
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
    const turnId = h.turnId();
    // Codex makes UUIDv7 turn ids: never a counter that repeats across threads.
    expect(turnId).toMatch(UUID);
    expect(h.of('turn/started')[0]?.params.turn).toMatchObject({
      status: 'inProgress',
      items: [],
      itemsView: 'notLoaded',
    });
    const deltas = h.of('item/agentMessage/delta').map((n) => n.params);
    expect(deltas.every((delta) => delta.turnId === turnId && delta.itemId === 'm1')).toBe(true);
    const completed = h.of('item/completed').map((n) => n.params.item);
    // The harness's own user message is the turn's userMessage (no second one is made).
    expect(completed[0]).toMatchObject({
      type: 'userMessage',
      id: 'u1',
      content: [{ type: 'text', text: 'Say hello' }],
    });
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
    const [done] = h.of('turn/completed');
    // Codex 0.169.0 and 0.171.0 end a completed turn with its final message as the summary.
    expect(done?.params.turn).toMatchObject({ id: turnId, status: 'completed', error: null, itemsView: 'summary' });
    expect(done?.params.turn.items).toEqual([completed[1]]);
    expect(done?.params.turn.durationMs).toBeGreaterThan(0);
    expect(h.state.turn).toBeUndefined();
  });

  it('makes the userMessage from the input when the harness sends none, before anything else of the turn', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Look', images: [{ source: 'path', path: '/tmp/a.png' }] });
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'm1', status: 'completed', text: 'A cat.' } });
    h.complete({ status: 'completed' });
    expectValid(h.sent);
    expect(h.methods()).toEqual([
      'turn/started',
      'item/started',
      'item/completed',
      'item/started',
      'item/completed',
      'turn/completed',
    ]);
    expect(h.of('item/completed')[0]?.params.item).toMatchObject({
      type: 'userMessage',
      id: expect.stringMatching(UUID),
      content: [
        { type: 'text', text: 'Look', text_elements: [] },
        { type: 'localImage', path: '/tmp/a.png' },
      ],
    });
    // A message that arrives only finished is still announced first, as Codex always does.
    expect(h.of('item/started')[1]?.params.item).toMatchObject({ type: 'agentMessage', id: 'm1' });
  });

  it('ends with every item of the turn when the thread asks for the full view (blocks mode)', () => {
    const h = harness({ itemsView: 'full' });
    h.stream.startTurn({ text: 'Run it' });
    const tool = { kind: 'command' as const, name: 'Bash' };
    h.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't1', status: 'running', tool, input: { command: 'ls' } },
    });
    h.emit({
      type: 'item.completed',
      item: {
        kind: 'tool_call',
        id: 't1',
        status: 'completed',
        tool,
        input: { command: 'ls' },
        output: { text: 'a\n' },
        exitCode: 0,
      },
    });
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Done.' } });
    h.complete({ status: 'completed' });
    expectValid(h.sent);
    const turn = h.of('turn/completed')[0]?.params.turn;
    expect(turn?.itemsView).toBe('full');
    expect(turn?.items.map((item) => item.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);
    expect(turn?.items[1]).toMatchObject({ status: 'completed', aggregatedOutput: 'a\n', exitCode: 0 });
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
    expectValid(h.sent);
    expect(h.of('item/reasoning/textDelta')[0]?.params).toMatchObject({ delta: 'Hmm.', contentIndex: 0 });
    expect(h.of('item/completed')[1]?.params.item).toMatchObject({
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
    expectValid(h.sent);
    expect(h.of('item/commandExecution/outputDelta').map((n) => n.params.delta)).toEqual([
      'ls: cannot access ',
      "'/nope'\n",
    ]);
    // Before the input is known the command is named by the tool's title.
    expect(h.of('item/started')[1]?.params.item).toMatchObject({ type: 'commandExecution', command: 'ls /nope' });
    expect(h.of('item/completed')[1]?.params.item).toMatchObject({
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

  it("a subagent is a collabAgentToolCall, and the subagent's own items go to its child thread", () => {
    const h = harness({ itemsView: 'full' });
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
    expectValid(h.sent);
    const child = `${THREAD}:subagent:task1`;
    expect(h.of('item/started')[1]?.params.item).toMatchObject({
      type: 'collabAgentToolCall',
      tool: 'spawnAgent',
      senderThreadId: THREAD,
      receiverThreadIds: [child],
      prompt: 'Look around',
    });
    expect(h.of('item/agentMessage/delta')[0]?.params.threadId).toBe(child);
    const completed = h.of('item/completed');
    expect(completed[1]?.params).toMatchObject({ threadId: child, item: { type: 'agentMessage', text: 'Found it.' } });
    expect(completed[2]?.params.item).toMatchObject({
      type: 'collabAgentToolCall',
      status: 'completed',
      agentsStates: { [child]: { status: 'completed', message: 'Found it.' } },
    });
    // The child thread's items are not the turn's own.
    expect(h.of('turn/completed')[0]?.params.turn.items.map((item) => item.id)).not.toContain('sub-m');
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
    expectValid(h.sent);
    expect(h.of('turn/plan/updated').map((n) => n.params)).toEqual([
      {
        threadId: THREAD,
        turnId: h.turnId(),
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
    expectValid(h.sent);
    // As Codex: the failure is told as an error notification, then the turn ends failed.
    expect(h.methods()).toEqual([
      'turn/started',
      'item/started',
      'item/completed',
      'item/started',
      'item/agentMessage/delta',
      'error',
      'turn/completed',
    ]);
    const turn = h.of('turn/completed')[0]?.params.turn;
    // As Codex: a failed turn ends with no items (notLoaded).
    expect(turn).toMatchObject({ status: 'failed', items: [], itemsView: 'notLoaded' });
    expect(turn?.error).toEqual({
      message: 'unsupported model "x": not found',
      codexErrorInfo: 'modelNotFound',
      additionalDetails: JSON.stringify({ reins: { code: 'unsupported_model', data: { model: 'x' } } }),
      misalignment: null,
    });
  });

  it('times that are not whole milliseconds go out whole, as Codex sends them', () => {
    const h = harness({ tick: 10.25 });
    h.stream.startTurn({ text: 'Hello?' });
    h.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } });
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Hi' } });
    h.complete({ status: 'completed' });
    expectValid(h.sent);
    expect(h.faults).toEqual([]);
    expect(Number.isInteger(h.of('item/started').at(-1)?.params.startedAtMs)).toBe(true);
  });

  it("a provider error's kind maps onto codexErrorInfo by Codex's own names only", () => {
    for (const [kind, info] of [
      ['rate_limited', 'rateLimitExceeded'],
      ['constructor', 'other'],
      ['toString', 'other'],
    ] as const) {
      const h = harness();
      h.stream.startTurn({ text: 'Hello?' });
      h.complete({ status: 'failed', error: { code: 'provider_error', message: 'no', data: { kind } } });
      expectValid(h.sent);
      expect(h.of('turn/completed')[0]?.params.turn.error?.codexErrorInfo, kind).toEqual(info);
    }
  });

  it('an interrupted turn ends interrupted, and the tool it cut off gets no item/completed', () => {
    const h = harness({ itemsView: 'full' });
    h.stream.startTurn({ text: 'Sleep' });
    const tool = { kind: 'command' as const, name: 'Bash' };
    h.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't1', status: 'running', tool, input: { command: 'sleep 60' } },
    });
    expect(requestInterrupt(h.state, h.turnId())).toBe(true);
    expect(requestInterrupt(h.state, 'another-turn')).toBe(false);
    h.complete({ status: 'cancelled' });
    expectValid(h.sent);
    expect(h.methods()).toEqual(['turn/started', 'item/started', 'item/completed', 'item/started', 'turn/completed']);
    const turn = h.of('turn/completed')[0]?.params.turn;
    expect(turn).toMatchObject({ status: 'interrupted', error: null });
    // The full view still shows the command, as the interrupt left it.
    expect(turn?.items[1]).toMatchObject({ type: 'commandExecution', status: 'failed' });
  });

  it('the session ending with a steered turn still pending ends the Codex turn, then closes the thread', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    expect(beginSteer(h.state)).toBe(h.turnId());
    h.complete({ status: 'completed' });
    expect(h.methods()).toEqual(['turn/started', 'item/started', 'item/completed']);
    h.stream.close('process_exited', { code: 'process_exited', message: 'gone' });
    expectValid(h.sent);
    expect(h.methods().slice(3)).toEqual(['turn/completed', 'thread/closed']);
  });
});

describe('usage', () => {
  it('sends every count Codex requires, from what the harness reported, once per change', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Count' });
    // Only part of the story: no notification (a count would have to be made up).
    h.emit({ type: 'usage.updated', context: { used: 5 } });
    expect(h.of('thread/tokenUsage/updated')).toEqual([]);
    const usage = {
      turn: { input: 7, output: 2 },
      total: { input: 7, output: 2, cachedInput: 3 },
      context: { used: 9, window: 1000 },
    };
    h.emit({ type: 'usage.updated', ...usage });
    h.complete({ status: 'completed' }, { usage });
    expectValid(h.sent);
    expect(h.of('thread/tokenUsage/updated').map((n) => n.params)).toEqual([
      {
        threadId: THREAD,
        turnId: h.turnId(),
        tokenUsage: {
          total: {
            totalTokens: 9,
            inputTokens: 7,
            cachedInputTokens: 3,
            cacheWriteInputTokens: 0,
            outputTokens: 2,
            reasoningOutputTokens: 0,
          },
          last: {
            totalTokens: 9,
            inputTokens: 7,
            cachedInputTokens: 0,
            cacheWriteInputTokens: 0,
            outputTokens: 2,
            reasoningOutputTokens: 0,
          },
          modelContextWindow: 1000,
        },
      },
    ]);
  });

  it('a thread started here that reports per turn only is totalled over its turns; a resumed one is not', () => {
    const fresh = harness();
    for (const [text, input] of [
      ['one', 10],
      ['two', 20],
    ] as const) {
      fresh.stream.startTurn({ text });
      fresh.complete({ status: 'completed' }, { usage: { turn: { input, output: 1 } } });
    }
    expectValid(fresh.sent);
    expect(fresh.of('thread/tokenUsage/updated').map((n) => n.params.tokenUsage.total.inputTokens)).toEqual([10, 30]);
    const resumed = harness({ fresh: false });
    resumed.stream.startTurn({ text: 'one' });
    resumed.complete({ status: 'completed' }, { usage: { turn: { input: 10, output: 1 } } });
    expect(resumed.of('thread/tokenUsage/updated')).toEqual([]);
  });
});

describe('steered input', () => {
  it('on a harness that queues it, runs inside the same Codex turn: one turn/started, one turn/completed', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'a1', status: 'completed', text: 'One.' } });
    const codexTurn = beginSteer(h.state) as string;
    h.complete({ status: 'completed' });
    // send() answered: the harness queued the input as its next turn, which has already begun.
    const second = h.stream.startTurn({ text: 'Second' }) as string;
    expect(endSteer(h.state, codexTurn, { text: 'Second' }, { turnId: second, delivery: 'queued' }, 0)).toEqual([]);
    h.emit({ type: 'item.completed', item: { kind: 'agent_message', id: 'a2', status: 'completed', text: 'Two.' } });
    h.complete({ status: 'completed' });
    expectValid(h.sent);
    expect(h.of('turn/started')).toHaveLength(1);
    expect(h.of('turn/completed')).toHaveLength(1);
    // Both inputs have their userMessage, inside the one turn.
    const users = h.of('item/completed').filter((n) => n.params.item.type === 'userMessage');
    expect(
      users.map((n) => [n.params.turnId, (n.params.item as { content: { text?: string }[] }).content[0]?.text]),
    ).toEqual([
      [codexTurn, 'First'],
      [codexTurn, 'Second'],
    ]);
    expect(h.of('turn/completed')[0]?.params.turn).toMatchObject({ id: codexTurn, status: 'completed' });
  });

  it('a queued input that has not started holds the turn open; a failure before it is told as an error', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    const codexTurn = beginSteer(h.state) as string;
    expect(endSteer(h.state, codexTurn, { text: 'Second' }, { turnId: 'turn_2', delivery: 'queued' }, 0)).toEqual([]);
    h.complete({
      status: 'failed',
      error: { code: 'provider_error', message: 'boom', data: { kind: 'server_error' } },
    });
    expect(h.methods().slice(-1)).toEqual(['error']);
    expect(h.of('error')[0]?.params).toMatchObject({ willRetry: false, turnId: codexTurn, error: { message: 'boom' } });
    h.stream.startTurn({ text: 'Second' });
    h.complete({ status: 'completed' });
    expectValid(h.sent);
    expect(h.of('turn/completed')).toHaveLength(1);
    expect(h.of('turn/completed')[0]?.params.turn.status).toBe('completed');
  });

  it('a steer the harness took into its running turn gets its userMessage; if the turn ended meanwhile, endSteer ends it', () => {
    const h = harness();
    h.stream.startTurn({ text: 'First' });
    const codexTurn = beginSteer(h.state) as string;
    h.complete({ status: 'completed' });
    const flushed = endSteer(h.state, codexTurn, { text: 'Also this' }, { turnId: 'x', delivery: 'steered' }, 5);
    expectValid([...h.sent, ...flushed]);
    expect(flushed.map((n) => n.method)).toEqual(['item/started', 'item/completed', 'turn/completed']);
    expect(h.state.turn).toBeUndefined();
  });
});

describe('structured output', () => {
  it('becomes the final agent message when the harness returned it out of band', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Verdict?' });
    h.complete({ status: 'completed' }, { structuredOutput: { verdict: 'pass' } });
    expectValid(h.sent);
    const message = h.of('item/completed')[1]?.params.item;
    expect(message).toMatchObject({ type: 'agentMessage', text: '{"verdict":"pass"}' });
    expect(h.of('turn/completed')[0]?.params.turn.items).toEqual([message]);
  });

  it('is not repeated when the last agent message already says it', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Verdict?' });
    h.emit({
      type: 'item.completed',
      item: { kind: 'agent_message', id: 'm', status: 'completed', text: '{ "verdict": "pass" }' },
    });
    h.complete({ status: 'completed' }, { structuredOutput: { verdict: 'pass' } });
    expect(h.of('item/completed').filter((n) => n.params.item.type === 'agentMessage')).toHaveLength(1);
  });
});

describe('what a harness may send that it should not', () => {
  it('an event that breaks the Reins schema is left out and reported; the thread goes on', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Hi' });
    const turnId = h.stream.activeTurnId as string;
    const base = { seq: 99, harness: 'claude-code', sessionId: 'rs_1', turnId, at: 1 };
    const sent = [
      ...translateSafely(h.state, { ...base, type: 'item.delta', itemId: 'm', kind: 'text', text: 5 }, (fault) =>
        h.faults.push(fault),
      ),
      ...translateSafely(h.state, { ...base, type: 'item.started', item: { kind: 'future_kind', id: 'z' } }, (fault) =>
        h.faults.push(fault),
      ),
      ...translateSafely(h.state, null, (fault) => h.faults.push(fault)),
    ];
    expect(sent).toEqual([]);
    expect(h.faults.map((fault) => fault.eventType)).toEqual(['item.delta', 'item.started', 'object']);
    h.complete({ status: 'completed' });
    expect(h.of('turn/completed')).toHaveLength(1);
  });

  it('a duplicated start, completion or terminal is told once', () => {
    const h = harness();
    h.stream.startTurn({ text: 'Hi' });
    const turnId = h.stream.activeTurnId as string;
    const base = { harness: 'claude-code', sessionId: 'rs_1', turnId, at: 5 };
    const item = { kind: 'agent_message', id: 'm', status: 'completed', text: 'Hi.' } as const;
    const again = (event: Record<string, unknown>, seq: number) =>
      h.sent.push(...translateSafely(h.state, { ...base, seq, ...event }));
    again({ type: 'item.started', item: { ...item, status: 'running', text: '' } }, 50);
    again({ type: 'item.started', item: { ...item, status: 'running', text: '' } }, 51);
    again({ type: 'item.completed', item }, 52);
    again({ type: 'item.completed', item }, 53);
    again({ type: 'item.started', item: { ...item, status: 'running', text: '' } }, 54);
    again({ type: 'turn.completed', outcome: { status: 'completed' } }, 55);
    again({ type: 'turn.completed', outcome: { status: 'completed' } }, 56);
    expectValid(h.sent);
    expect(h.methods().filter((method) => method === 'item/started')).toHaveLength(2);
    expect(h.methods().filter((method) => method === 'item/completed')).toHaveLength(2);
    expect(h.of('turn/completed')).toHaveLength(1);
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
    expectValid(h.sent);
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
});
