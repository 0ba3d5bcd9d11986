// Translation units: frames recorded from the real Codex 0.169.0 (fixtures/*.0.169.0.jsonl) through the pure
// translation, plus typed frames (checked against the generated wire types) for paths no fixture covers.
import { fileURLToPath } from 'node:url';
import type { EventPayload, Item, ToolCallItem } from '@reins/core';
import { type Fixture, readFixture } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import {
  createTranslateState,
  errorInfoOf,
  modelInfoOf,
  type NotificationFrame,
  outcomeOf,
  type Translated,
  type TranslateState,
  toItem,
  translateNotification,
  usageOf,
} from './translate.js';
import type { ServerNotification, ThreadItem, Turn, TurnError } from './wire.js';

const fixture = (name: string) =>
  readFixture(fileURLToPath(new URL(`./fixtures/${name}.0.169.0.jsonl`, import.meta.url)));

interface Replay {
  fixture: Fixture;
  state: TranslateState;
  translated: Translated[];
  payloads: EventPayload[];
  turns: Turn[];
}

/**
 * Feeds a fixture's notifications the way the session does: a turn runs from the turn/start Reins sent to
 * turn/completed (which the session keeps for itself, like turn/started).
 */
async function replay(name: string): Promise<Replay> {
  const loaded = await fixture(name);
  const state = createTranslateState();
  const translated: Translated[] = [];
  const turns: Turn[] = [];
  for (const { dir, frame } of loaded.frames) {
    if (dir === 'in' && (frame as { method?: unknown }).method === 'turn/start') {
      state.turnId = `turn_${turns.length + 1}`;
      state.planCount = 0;
    }
    if (dir !== 'out' || typeof frame !== 'object' || frame === null) continue;
    const record = frame as Record<string, unknown>;
    const result = record.result as { thread?: { id: string } } | undefined;
    if (result?.thread && state.threadId === undefined) {
      state.threadId = result.thread.id;
      state.totalAtTurnStart = state.lastTotal ?? zero;
    }
    if (typeof record.method !== 'string' || 'id' in record) continue;
    if (record.method === 'turn/started') {
      state.totalAtTurnStart = state.lastTotal ?? zero;
      continue;
    }
    if (record.method === 'turn/completed') {
      turns.push((record.params as { turn: Turn }).turn);
      state.turnId = undefined;
      continue;
    }
    translated.push(...translateNotification(state, record as NotificationFrame));
  }
  return { fixture: loaded, state, translated, payloads: translated.map((entry) => entry.payload), turns };
}

const zero = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

const completedItems = (payloads: EventPayload[]): Item[] =>
  payloads.flatMap((payload) => (payload.type === 'item.completed' ? [payload.item] : []));
const tools = (payloads: EventPayload[]): ToolCallItem[] =>
  completedItems(payloads).filter((item): item is ToolCallItem => item.kind === 'tool_call');

describe('codex translation on recorded frames (0.169.0)', () => {
  it('fixtures carry the Codex version', async () => {
    const { header } = await fixture('text-turn');
    expect(header).toMatchObject({
      format: 'reins/v1',
      harness: 'codex',
      package: '@openai/codex',
      version: '0.169.0',
    });
  });

  it('text turn: thread, status, user and agent messages, deltas and usage', async () => {
    const { payloads, turns } = await replay('text-turn');
    expect(payloads.map((payload) => payload.type)).toEqual([
      'passthrough', // remoteControl/status/changed: nothing Reins models
      'session.updated',
      'session.status',
      'item.started',
      'item.completed',
      'item.started',
      'item.delta',
      'item.delta',
      'item.delta',
      'item.completed',
      'usage.updated',
      'passthrough', // account/rateLimits/updated with every limit null: no notice (it was noise every turn)
      'session.status',
    ]);
    expect(payloads.filter((payload) => payload.type === 'session.status')).toEqual([
      { type: 'session.status', status: 'running' },
      { type: 'session.status', status: 'idle' },
    ]);
    const deltas = payloads.flatMap((payload) => (payload.type === 'item.delta' ? [payload.text] : []));
    expect(deltas.join('')).toBe('Hello from the scripted model.');
    expect(completedItems(payloads)).toEqual([
      { kind: 'user_message', id: expect.any(String), status: 'completed', text: 'Say hello.' },
      { kind: 'agent_message', id: 'msg_scripted_2', status: 'completed', text: 'Hello from the scripted model.' },
    ]);
    const usage = payloads.find((payload) => payload.type === 'usage.updated');
    expect(usage).toEqual({
      type: 'usage.updated',
      turn: { input: 120, cachedInput: 0, cacheWrite: 0, output: 9, reasoning: 0, total: 129 },
      total: { input: 120, cachedInput: 0, cacheWrite: 0, output: 9, reasoning: 0, total: 129 },
      context: { used: 129, window: expect.any(Number) },
    });
    expect(usage && 'costUsd' in usage).toBe(false);
    expect(turns.map((turn) => outcomeOf(turn))).toEqual([{ status: 'completed' }]);
  });

  it('reasoning: summary deltas stream as reasoning and the item keeps the summary', async () => {
    const { payloads } = await replay('reasoning');
    const deltas = payloads.flatMap((payload) =>
      payload.type === 'item.delta' && payload.kind === 'reasoning' ? [payload.text] : [],
    );
    expect(deltas.join('')).toBe('Weighing the options.');
    const reasoning = completedItems(payloads).filter((item) => item.kind === 'reasoning');
    expect(reasoning).toEqual([
      { kind: 'reasoning', id: 'rs_scripted_2', status: 'completed', text: '', summary: 'Weighing the options.' },
    ]);
  });

  it('shell command: one command tool_call with output, exit code and command actions', async () => {
    const { payloads } = await replay('shell-command');
    const started = payloads.find((payload) => payload.type === 'item.started' && payload.item.kind === 'tool_call');
    expect(started?.type === 'item.started' && started.item.status).toBe('running');
    const [command] = tools(payloads);
    expect(command).toMatchObject({
      kind: 'tool_call',
      status: 'completed',
      exitCode: 0,
      tool: { kind: 'command', name: 'exec_command', title: expect.stringContaining('echo reins-shell-ok') },
      output: {
        text: expect.stringContaining('reins-shell-ok'),
        structured: { commandActions: [{ type: 'unknown', command: 'echo reins-shell-ok' }] },
      },
    });
    expect(started?.type === 'item.started' && started.item.id).toBe(command?.id);
  });

  it('file edit: a file_change with its diff, and the turn diff as a notice', async () => {
    const { payloads } = await replay('file-edit');
    const [edit] = tools(payloads);
    expect(edit?.tool).toEqual({ kind: 'file_change', name: 'apply_patch' });
    expect(edit?.changes).toEqual([
      { kind: 'add', path: expect.stringMatching(/notes\.txt$/), diff: 'written by codex\n' },
    ]);
    const diff = payloads.find((payload) => payload.type === 'notice' && payload.message.includes('diff'));
    expect(diff?.type === 'notice' && JSON.stringify(diff.data)).toContain('notes.txt');
  });

  it('approvals: waiting on approval mirrors as requires_action; a declined command ends declined', async () => {
    const { payloads } = await replay('approvals-decline');
    const statuses = payloads.flatMap((payload) => (payload.type === 'session.status' ? [payload.status] : []));
    expect(statuses).toContain('requires_action');
    expect(tools(payloads).map((tool) => tool.status)).toEqual(['declined']);
  });

  it('interrupt: the turn ends interrupted -> cancelled; the stream helper closes what Codex left open', async () => {
    const { turns, payloads } = await replay('interrupt-command');
    expect(outcomeOf(turns[0] as Turn)).toEqual({ status: 'cancelled' });
    const startedTools = payloads.filter(
      (payload) => payload.type === 'item.started' && payload.item.kind === 'tool_call',
    );
    // 0.169.0: no item/completed for the running command; the adapter relies on completeTurn to close it.
    expect(startedTools).toHaveLength(1);
    const id = startedTools[0]?.type === 'item.started' ? startedTools[0].item.id : '';
    expect(tools(payloads).filter((tool) => tool.id === id)).toEqual([]);
  });

  it.each([
    ['error-500', { code: 'provider_error', retryable: true, data: { kind: 'server_error' } }],
    ['error-401', { code: 'auth_required', data: { httpStatus: 401 } }],
    ['error-404-model', { code: 'unsupported_model', message: expect.stringContaining('unsupported model') }],
  ])('%s: the error notification and the failed turn carry the mapped code', async (name, expected) => {
    const { payloads, turns } = await replay(name);
    const error = payloads.find((payload) => payload.type === 'error');
    expect(error).toMatchObject({ ...expected, fatal: false });
    const outcome = outcomeOf(turns[0] as Turn, 'fake-model');
    expect(outcome).toMatchObject({ status: 'failed', error: expected });
  });

  it('resume: a second process on the same thread maps the same way', async () => {
    const { payloads } = await replay('resume');
    const agentTexts = completedItems(payloads).flatMap((item) => (item.kind === 'agent_message' ? [item.text] : []));
    expect(agentTexts).toEqual(['I will remember PINEAPPLE.', 'The word was PINEAPPLE.']);
  });
});

describe('codex translation of typed frames', () => {
  const threadId = 'thread-main';
  const frame = (notification: ServerNotification): NotificationFrame => notification as NotificationFrame;

  it('passes unknown methods and frames of unrelated threads through', () => {
    const state = createTranslateState(threadId);
    const unknown = { method: 'future/thing', params: { x: 1 } };
    expect(translateNotification(state, unknown)).toEqual([
      { payload: { type: 'passthrough', frame: unknown, reason: 'unknown' } },
    ]);
    const other = frame({
      method: 'item/agentMessage/delta',
      params: { threadId: 'someone-else', turnId: 't', itemId: 'i', delta: 'x' },
    });
    expect(translateNotification(state, other)).toEqual([{ payload: { type: 'passthrough', frame: other } }]);
  });

  // The frames of issue 14 that took a whole process down (0.169.0 wire, values a newer or broken Codex sends).
  it.each([
    [
      'an item type 0.169.0 does not declare',
      { method: 'item/started', params: { threadId, item: { type: 'futureItemKind', id: 'x' } } },
      'unknown',
    ],
    [
      'a thread status 0.169.0 does not declare',
      { method: 'thread/status/changed', params: { threadId, status: { type: 'paused' } } },
      'unknown',
    ],
    [
      'an item status 0.169.0 does not declare',
      {
        method: 'item/completed',
        params: { threadId, item: { type: 'commandExecution', id: 'c', status: 'paused', command: 'ls' } },
      },
      'unknown',
    ],
    [
      'a patch kind 0.169.0 does not declare',
      {
        method: 'item/completed',
        params: {
          threadId,
          item: {
            type: 'fileChange',
            id: 'f',
            status: 'completed',
            changes: [{ path: 'a', kind: { type: 'rename' } }],
          },
        },
      },
      'unknown',
    ],
    [
      'a plan step status 0.169.0 does not declare',
      { method: 'turn/plan/updated', params: { threadId, turnId: 't', plan: [{ step: 's', status: 'skipped' }] } },
      'unknown',
    ],
    ['item/started with no item', { method: 'item/started', params: { threadId } }, 'unparsable'],
    [
      'a delta whose text is not a string',
      { method: 'item/agentMessage/delta', params: { threadId, itemId: 'i', delta: { text: 'x' } } },
      'unparsable',
    ],
    ['an error with no message', { method: 'error', params: { threadId, error: {}, willRetry: false } }, 'unparsable'],
    ['params that are not an object', { method: 'thread/tokenUsage/updated', params: 'usage' }, 'unparsable'],
  ])('passes %s through, marked, instead of throwing', (_what, native, reason) => {
    const state = createTranslateState(threadId);
    expect(translateNotification(state, native as NotificationFrame)).toEqual([
      { payload: { type: 'passthrough', frame: native, reason } },
    ]);
  });

  it('a turn status 0.169.0 does not declare, or no turn at all, fails the turn with protocol_error', () => {
    expect(outcomeOf({ id: 't', items: [], status: 'paused', error: null } as unknown as Turn)).toMatchObject({
      status: 'failed',
      error: { code: 'protocol_error', message: expect.stringContaining('"paused"') },
    });
    expect(outcomeOf(undefined as unknown as Turn)).toMatchObject({
      status: 'failed',
      error: { code: 'protocol_error' },
    });
  });

  it('an item started or completed a second time (a re-sent frame) is a duplicate passthrough', () => {
    const state = createTranslateState(threadId);
    state.turnId = 'turn_1';
    const item = { type: 'agentMessage', id: 'm1', text: 'hi', completedAtMs: 1 };
    const started = { method: 'item/started', params: { threadId, item: { ...item, text: '', completedAtMs: null } } };
    const completed = { method: 'item/completed', params: { threadId, item } };
    expect(translateNotification(state, started)[0]?.payload.type).toBe('item.started');
    expect(translateNotification(state, started)[0]?.payload).toEqual({
      type: 'passthrough',
      frame: started,
      reason: 'duplicate',
    });
    expect(translateNotification(state, completed)[0]?.payload.type).toBe('item.completed');
    expect(translateNotification(state, completed)[0]?.payload).toEqual({
      type: 'passthrough',
      frame: completed,
      reason: 'duplicate',
    });
    // A start that arrives after the completion (frames out of order) does not reopen the item.
    expect(translateNotification(state, started)[0]?.payload).toMatchObject({ reason: 'duplicate' });
    // A completion after the item's turn ended (the stream closed it then) is one too; outside a turn,
    // an item Reins never saw start is a late frame and passes through plainly.
    const other = { type: 'agentMessage', id: 'm2', text: '', completedAtMs: null };
    translateNotification(state, { method: 'item/started', params: { threadId, item: other } });
    state.turnId = undefined;
    const late = { method: 'item/completed', params: { threadId, item: { ...other, completedAtMs: 2 } } };
    expect(translateNotification(state, late)[0]?.payload).toMatchObject({ reason: 'duplicate' });
    const stray = { method: 'item/completed', params: { threadId, item: { ...other, id: 'm3' } } };
    expect(translateNotification(state, stray)).toEqual([{ payload: { type: 'passthrough', frame: stray } }]);
  });

  it('token counts that are negative, or that went down since the turn started, stay absent', () => {
    const state = createTranslateState(threadId);
    state.totalAtTurnStart = { ...zero, totalTokens: 100, inputTokens: 80 };
    const usage = usageOf(state, {
      total: { ...zero, totalTokens: 50, inputTokens: -3 },
      last: { ...zero, totalTokens: 50 },
      modelContextWindow: null,
    } as never);
    expect(usage.turn).not.toHaveProperty('total');
    expect(usage.turn).not.toHaveProperty('input');
    expect(usage.total).not.toHaveProperty('input');
    expect(usage.total?.total).toBe(50);
  });

  it('links a subagent thread to the collab tool call that spawned it (parentItemId, prefixed ids)', () => {
    const state = createTranslateState(threadId);
    state.turnId = 'turn_1';
    const spawn: ThreadItem = {
      type: 'collabAgentToolCall',
      id: 'call_spawn',
      tool: 'spawnAgent',
      status: 'inProgress',
      senderThreadId: threadId,
      receiverThreadIds: ['thread-child'],
      prompt: 'Count the files.',
      model: null,
      reasoningEffort: null,
      agentsStates: {},
    };
    const started = translateNotification(
      state,
      frame({ method: 'item/started', params: { item: spawn, threadId, turnId: 't1', startedAtMs: 1 } }),
    );
    expect(started[0]?.payload).toMatchObject({
      type: 'item.started',
      item: { kind: 'tool_call', id: 'call_spawn', tool: { kind: 'subagent', name: 'spawnAgent' } },
    });
    const childMessage = translateNotification(
      state,
      frame({
        method: 'item/agentMessage/delta',
        params: { threadId: 'thread-child', turnId: 'tc', itemId: 'msg_1', delta: 'three' },
      }),
    );
    expect(childMessage).toEqual([
      {
        payload: { type: 'item.delta', itemId: 'thread-child:msg_1', kind: 'text', text: 'three' },
        parentItemId: 'call_spawn',
      },
    ]);
    const childStatus = translateNotification(
      state,
      frame({ method: 'thread/status/changed', params: { threadId: 'thread-child', status: { type: 'idle' } } }),
    );
    expect(childStatus[0]).toMatchObject({ payload: { type: 'passthrough' }, parentItemId: 'call_spawn' });
  });

  it('plan updates become settled plan snapshots with unique ids', () => {
    const state = createTranslateState(threadId);
    state.turnId = 'turn_1';
    const update = (status: 'pending' | 'inProgress' | 'completed') =>
      translateNotification(
        state,
        frame({
          method: 'turn/plan/updated',
          params: { threadId, turnId: 't', explanation: null, plan: [{ step: 'Read the code', status }] },
        }),
      ).map((entry) => entry.payload);
    const first = update('inProgress');
    const second = update('completed');
    expect(first).toEqual([
      {
        type: 'item.started',
        item: {
          kind: 'plan',
          id: 'plan-turn_1-1',
          status: 'running',
          entries: [{ text: 'Read the code', status: 'in_progress' }],
        },
      },
      {
        type: 'item.completed',
        item: {
          kind: 'plan',
          id: 'plan-turn_1-1',
          status: 'completed',
          entries: [{ text: 'Read the code', status: 'in_progress' }],
        },
      },
    ]);
    expect(second[1]).toMatchObject({ item: { id: 'plan-turn_1-2', entries: [{ status: 'completed' }] } });
  });

  it('a retrying error is a retry notice, not an error', () => {
    const state = createTranslateState(threadId);
    const error: TurnError = {
      message: 'Reconnecting... 1/5',
      codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } },
      additionalDetails: null,
      misalignment: null,
    };
    const out = translateNotification(
      state,
      frame({ method: 'error', params: { error, willRetry: true, threadId, turnId: 't' } }),
    );
    expect(out.map((entry) => entry.payload)).toEqual([
      {
        type: 'notice',
        kind: 'retry',
        message: 'Reconnecting... 1/5',
        data: { codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } } },
      },
    ]);
  });

  it.each([
    [{ responseTooManyFailedAttempts: { httpStatusCode: 429 } }, 'provider_error', 'rate_limited'],
    [{ responseTooManyFailedAttempts: { httpStatusCode: 500 } }, 'provider_error', 'server_error'],
    ['rateLimitExceeded', 'provider_error', 'rate_limited'],
    ['serverOverloaded', 'provider_error', 'overloaded'],
    ['contextWindowExceeded', 'provider_error', 'context_window_exceeded'],
    ['unauthorized', 'auth_required', undefined],
    [{ httpConnectionFailed: { httpStatusCode: 403 } }, 'auth_required', undefined],
    [{ responseStreamDisconnected: { httpStatusCode: null } }, 'provider_error', 'connection_failed'],
    ['sandboxError', 'provider_error', 'unknown'],
  ] as const)('maps codexErrorInfo %j to %s', (info, code, kind) => {
    const mapped = errorInfoOf({ message: 'boom', codexErrorInfo: info, additionalDetails: null, misalignment: null });
    expect(mapped.code).toBe(code);
    if (kind) expect(mapped.data?.kind).toBe(kind);
  });

  it('turn usage is the difference of thread totals when the start is known, else the last request', () => {
    const state = createTranslateState(threadId);
    const breakdown = (input: number, output: number) => ({
      ...zero,
      inputTokens: input,
      outputTokens: output,
      totalTokens: input + output,
    });
    state.totalAtTurnStart = breakdown(100, 10);
    const usage = usageOf(state, { total: breakdown(350, 40), last: breakdown(200, 20), modelContextWindow: 1000 });
    expect(usage.turn).toMatchObject({ input: 250, output: 30, total: 280 });
    expect(usage.context).toEqual({ used: 220, window: 1000 });
    state.totalAtTurnStart = undefined;
    expect(usageOf(state, { total: breakdown(350, 40), last: breakdown(200, 20), modelContextWindow: null })).toEqual({
      turn: expect.objectContaining({ input: 200, output: 20 }),
      total: expect.objectContaining({ input: 350 }),
      context: { used: 220 },
    });
  });

  it('a count the peer left out stays absent (never NaN, never 0): our own bridge sends partial breakdowns', () => {
    const state = createTranslateState(threadId);
    state.totalAtTurnStart = { inputTokens: 100, outputTokens: 10 } as typeof zero;
    const partial = { inputTokens: 350, outputTokens: 40 } as typeof zero;
    const usage = usageOf(state, { total: partial, last: partial, modelContextWindow: null });
    expect(usage.turn).toEqual({ input: 250, output: 30 });
    expect(usage.total).toEqual({ input: 350, output: 40 });
    expect(usage.context).toBeUndefined();
  });

  it('keeps a Reins error that a Reins bridge carried in additionalDetails', () => {
    const mapped = errorInfoOf({
      message: 'the reply does not match the schema',
      codexErrorInfo: 'other',
      additionalDetails: JSON.stringify({ reins: { code: 'structured_output_invalid', data: { path: '/verdict' } } }),
      misalignment: null,
    });
    expect(mapped).toEqual({
      code: 'structured_output_invalid',
      message: 'the reply does not match the schema',
      data: { path: '/verdict' },
    });
    // Anything else in additionalDetails is Codex's own text, not a Reins error.
    const other = errorInfoOf({
      message: 'x',
      codexErrorInfo: 'other',
      additionalDetails: '{"reins":1}',
      misalignment: null,
    });
    expect(other.code).toBe('provider_error');
  });

  // Fuzz seed 2609360304 case 151860: exitCode 1e308 reached an item the contract's schema refuses.
  it('an exit code outside the i32 Codex declares is left out, not clamped; one inside it is kept', () => {
    const command = (exitCode: unknown) =>
      toItem({
        type: 'commandExecution',
        id: 'c1',
        command: 'ls',
        cwd: '/w',
        status: 'completed',
        aggregatedOutput: '',
        exitCode,
      }) as ToolCallItem;
    for (const kept of [0, 1, -1, 2 ** 31 - 1, -(2 ** 31)]) expect(command(kept).exitCode).toBe(kept);
    for (const dropped of [1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1.5, Number.NaN, Infinity, '1', null]) {
      const item = command(dropped);
      expect(item).not.toHaveProperty('exitCode');
      expect(item).toMatchObject({ kind: 'tool_call', status: 'completed', tool: { kind: 'command' } });
    }
  });

  it('a user message is classified the same on its start and its completion, whatever came before', () => {
    const user = (id: string, text: string) =>
      toItem({ type: 'userMessage', id, content: [{ type: 'text', text, text_elements: [] }] }) as Item;
    const envelope = '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>';
    for (const [first, second] of [
      ['Say hello.', envelope],
      [envelope, 'Say hello.'],
      [envelope, envelope],
      ['Say hello.', 'Say hello.'],
    ] as const) {
      for (const text of [first, first, second, second]) {
        const origin = text === envelope ? 'synthetic' : undefined;
        expect(user('u1', text)).toEqual({
          kind: 'user_message',
          id: 'u1',
          status: 'running',
          text,
          ...(origin ? { origin } : {}),
        });
      }
    }
  });

  it('items Reins has no kind for return undefined (the caller passes them through)', () => {
    const hook: ThreadItem = { type: 'hookPrompt', id: 'h1', fragments: [] };
    expect(toItem(hook)).toBeUndefined();
  });

  it('a completed turn that Codex still calls inProgress is a protocol error', () => {
    const turn: Turn = {
      id: 't',
      rootTurnId: null,
      items: [],
      itemsView: 'notLoaded',
      status: 'inProgress',
      error: null,
      startedAt: null,
      completedAt: null,
      durationMs: null,
    };
    expect(outcomeOf(turn)).toMatchObject({ status: 'failed', error: { code: 'protocol_error' } });
  });
});

describe('codex rate limits', () => {
  it('a snapshot that reports a limit is a rate_limit notice; one with every limit null is not', () => {
    const state = createTranslateState('t1');
    const frame = (rateLimits: Record<string, unknown>) =>
      ({ method: 'account/rateLimits/updated', params: { rateLimits } }) as unknown as NotificationFrame;
    const empty = { limitId: 'codex', primary: null, secondary: null, credits: null, rateLimitReachedType: null };
    expect(translateNotification(state, frame(empty)).map((t) => t.payload.type)).toEqual(['passthrough']);
    const window = { usedPercent: 80, windowDurationMins: 300, resetsAt: null };
    expect(translateNotification(state, frame({ ...empty, primary: window })).map((t) => t.payload)).toEqual([
      expect.objectContaining({ type: 'notice', kind: 'rate_limit' }),
    ]);
  });
});

describe('codex translate: model/list entries', () => {
  it('keeps the efforts and the default effort Codex names, and drops an effort Reins does not know', () => {
    const entry = {
      id: 'fake-model',
      displayName: 'Fake Model',
      isDefault: true,
      supportedReasoningEfforts: [{ reasoningEffort: 'low' }, { reasoningEffort: 'medium' }],
      defaultReasoningEffort: 'medium',
    };
    expect(modelInfoOf(entry)).toEqual({
      id: 'fake-model',
      displayName: 'Fake Model',
      isDefault: true,
      efforts: ['low', 'medium'],
      defaultEffort: 'medium',
    });
    expect(modelInfoOf({ ...entry, defaultReasoningEffort: 'turbo' })).not.toHaveProperty('defaultEffort');
  });
});
