// Reins events -> ACP updates, over event sequences stamped by the real SessionEventStream (which
// closes what a turn leaves open), plus the prompt answer and the config options.
import {
  type EventPayload,
  type ReinsEvent,
  SessionEventStream,
  type ToolCallItem,
  type TurnCompletedEvent,
  type TurnOutcome,
} from '@reins/core';
import { describe, expect, it } from 'vitest';
import { acpSchema } from '../../test/support/acp-schema.js';
import { acpErrorOf, permissionRequestOf, promptAnswer, promptUsageOf } from './answers.js';
import { type BridgeSettings, configOptionsOf } from './options.js';
import { diffTexts } from './tools.js';
import { createBridgeState, historyUpdates, takeConfigOptions, translateEvent } from './translate.js';
import type { SessionUpdate } from './wire.js';

const SETTINGS: BridgeSettings = { effortSwitch: false, posture: 'bypass', modes: false };

/** Every update validates against the ACP SDK's own schema, as a session/update notification. */
function valid(updates: SessionUpdate[]): SessionUpdate[] {
  const schema = acpSchema();
  const broken = updates.flatMap((update) => {
    const errors = schema.check('SessionNotification', { sessionId: 's1', update });
    return errors ? [`${update.sessionUpdate}: ${errors}`] : [];
  });
  expect(broken).toEqual([]);
  return updates;
}

/** Runs payloads through a real event stream as one turn; returns the stamped events. */
function turn(payloads: EventPayload[], outcome: TurnOutcome = { status: 'completed' }, stopReason?: string) {
  const events: ReinsEvent[] = [];
  const stream = new SessionEventStream({ harness: 'codex', sessionId: 's1', onEvent: (e) => events.push(e) });
  stream.startTurn({ text: 'go' });
  for (const payload of payloads) stream.emit(payload);
  stream.completeTurn({ outcome, ...(stopReason ? { stopReason } : {}) });
  return events;
}

function translateAll(events: ReinsEvent[], settings: Partial<BridgeSettings> = {}, notices = true) {
  const state = createBridgeState({ ...SETTINGS, ...settings }, { notices });
  return { state, updates: valid(events.flatMap((event) => translateEvent(state, event))) };
}

const terminalOf = (events: ReinsEvent[]) => events.at(-1) as TurnCompletedEvent;

/** The text a client would show for each message id, from the chunks. */
function shown(updates: SessionUpdate[], kind = 'agent_message_chunk'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const update of updates) {
    if (update.sessionUpdate !== kind) continue;
    const chunk = update as SessionUpdate & { content: { type: string; text?: string }; messageId?: string | null };
    out[chunk.messageId ?? '?'] = (out[chunk.messageId ?? '?'] ?? '') + (chunk.content.text ?? '');
  }
  return out;
}

describe('text', () => {
  it('streams deltas as chunks and does not repeat the text when the item completes', () => {
    const events = turn([
      { type: 'item.started', item: { kind: 'agent_message', id: 'msg_1', status: 'running', text: '' } },
      { type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'Hello ' },
      { type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'world.' },
      {
        type: 'item.completed',
        item: { kind: 'agent_message', id: 'msg_1', status: 'completed', text: 'Hello world.' },
      },
    ]);
    const { updates } = translateAll(events);
    expect(updates).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello ' }, messageId: 'msg_1' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'world.' }, messageId: 'msg_1' },
    ]);
  });

  it('sends a message that arrives only as item.completed once, whole', () => {
    const events = turn([
      {
        type: 'item.completed',
        item: { kind: 'agent_message', id: 'msg_9', status: 'completed', text: 'All at once.' },
      },
    ]);
    expect(shown(translateAll(events).updates)).toEqual({ msg_9: 'All at once.' });
  });

  it('adds only the missing tail when the deltas stopped short of the final text', () => {
    const events = turn([
      { type: 'item.started', item: { kind: 'agent_message', id: 'msg_1', status: 'running', text: '' } },
      { type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'Hel' },
      { type: 'item.completed', item: { kind: 'agent_message', id: 'msg_1', status: 'completed', text: 'Hello.' } },
    ]);
    const { updates } = translateAll(events);
    expect(updates).toHaveLength(2);
    expect(shown(updates)).toEqual({ msg_1: 'Hello.' });
  });

  it('keeps two messages apart by messageId and sends reasoning as thought chunks', () => {
    const events = turn([
      { type: 'item.started', item: { kind: 'reasoning', id: 'r_1', status: 'running', text: '' } },
      { type: 'item.delta', itemId: 'r_1', kind: 'reasoning', text: 'Thinking.' },
      { type: 'item.completed', item: { kind: 'reasoning', id: 'r_1', status: 'completed', text: 'Thinking.' } },
      { type: 'item.completed', item: { kind: 'agent_message', id: 'msg_1', status: 'completed', text: 'One.' } },
      { type: 'item.started', item: { kind: 'agent_message', id: 'msg_2', status: 'running', text: '' } },
      { type: 'item.delta', itemId: 'msg_2', kind: 'text', text: 'Two.' },
    ]);
    // msg_2 is left open: the stream closes it at turn end with the text its deltas carried.
    const { updates } = translateAll(events);
    expect(shown(updates)).toEqual({ msg_1: 'One.', msg_2: 'Two.' });
    expect(shown(updates, 'agent_thought_chunk')).toEqual({ r_1: 'Thinking.' });
  });

  it('leaves a subagent’s words out of the agent’s answer', () => {
    const events: ReinsEvent[] = [];
    const collecting = new SessionEventStream({
      harness: 'claude-code',
      sessionId: 's1',
      onEvent: (e) => events.push(e),
    });
    collecting.startTurn({ text: 'go' });
    collecting.emit({ type: 'item.delta', itemId: 'sub_msg', kind: 'text', text: 'inner' }, { parentItemId: 'task_1' });
    collecting.emit({ type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'outer' });
    expect(shown(translateAll(events).updates)).toEqual({ msg_1: 'outer' });
  });
});

describe('tool calls', () => {
  const command: ToolCallItem = {
    kind: 'tool_call',
    id: 'call_1',
    status: 'running',
    tool: { kind: 'command', name: 'exec_command', title: 'ls -1' },
    input: { command: 'ls -1' },
  };

  it('announces the call, streams all output so far, and settles it with rawInput, rawOutput and exit code', () => {
    const events = turn([
      { type: 'item.started', item: command },
      { type: 'item.delta', itemId: 'call_1', kind: 'tool_output', text: 'a\n' },
      { type: 'item.delta', itemId: 'call_1', kind: 'tool_output', text: 'b\n' },
      {
        type: 'item.completed',
        item: {
          ...command,
          status: 'completed',
          output: { text: 'a\nb\n', structured: { stdout: 'a\nb\n' } },
          exitCode: 0,
        },
      },
    ]);
    const { updates, state } = translateAll(events);
    expect(updates).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        title: 'ls -1',
        name: 'exec_command',
        kind: 'execute',
        status: 'in_progress',
        rawInput: { command: 'ls -1' },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'a\n' } }],
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'a\nb\n' } }],
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        title: 'ls -1',
        name: 'exec_command',
        kind: 'execute',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'a\nb\n' } }],
        rawInput: { command: 'ls -1' },
        rawOutput: { stdout: 'a\nb\n', exitCode: 0 },
      },
    ]);
    expect(state.tools.size).toBe(0);
  });

  it('sends a call that was never announced as one tool_call with its final status', () => {
    const events = turn([
      {
        type: 'item.completed',
        item: { ...command, status: 'failed', output: { text: 'denied' }, exitCode: 1 },
      },
    ]);
    const { updates } = translateAll(events);
    expect(updates).toEqual([
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        status: 'failed',
        rawOutput: { exitCode: 1 },
      }),
    ]);
  });

  it('marks a call the turn left running as failed when the turn is cancelled (ACP has no cancelled status)', () => {
    const events = turn([{ type: 'item.started', item: command }], { status: 'cancelled' });
    const { updates } = translateAll(events);
    expect(updates.at(-1)).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'failed' });
    expect(promptAnswer(terminalOf(events))).toEqual({ ok: true, response: { stopReason: 'cancelled' } });
  });

  it('turns file changes into diff content and locations', () => {
    const edit: ToolCallItem = {
      kind: 'tool_call',
      id: 'patch_1',
      status: 'completed',
      tool: { kind: 'file_change', name: 'apply_patch' },
      input: {},
      changes: [
        { path: '/w/a.txt', kind: 'update', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new' },
        { path: '/w/notes.txt', kind: 'add', diff: 'written by codex\n' },
        { path: '/w/gone.txt', kind: 'update', diff: 'not a diff' },
      ],
    };
    const { updates } = translateAll(turn([{ type: 'item.completed', item: edit }]));
    expect(updates[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      kind: 'edit',
      title: 'apply_patch',
      content: [
        { type: 'diff', path: '/w/a.txt', oldText: 'keep\nold', newText: 'keep\nnew' },
        { type: 'diff', path: '/w/notes.txt', oldText: null, newText: 'written by codex\n' },
      ],
      locations: [{ path: '/w/a.txt' }, { path: '/w/notes.txt' }, { path: '/w/gone.txt' }],
    });
  });

  it('reads a deletion diff as a deletion', () => {
    expect(diffTexts({ path: 'x', kind: 'delete', diff: '--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye' })).toEqual({
      oldText: 'bye',
      newText: '',
    });
  });
});

describe('plan, usage, notices, settings', () => {
  it('sends a plan snapshot once, with a neutral priority where the harness gave none', () => {
    const plan = {
      kind: 'plan' as const,
      id: 'plan_1',
      status: 'completed' as const,
      entries: [
        { text: 'Read', status: 'completed' as const, priority: 'high' as const },
        { text: 'Write', status: 'in_progress' as const },
      ],
    };
    const events = turn([
      { type: 'item.started', item: { ...plan, status: 'running' } },
      { type: 'item.completed', item: plan },
    ]);
    expect(translateAll(events).updates).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read', status: 'completed', priority: 'high' },
          { content: 'Write', status: 'in_progress', priority: 'medium' },
        ],
      },
    ]);
  });

  it('sends usage_update only with both used and size, and the cost when there is one', () => {
    const events = turn([
      { type: 'usage.updated', context: { used: 1200 } },
      {
        type: 'usage.updated',
        context: { used: 1500, window: 200_000 },
        costUsd: { amount: 0.02, currency: 'USD', source: 'provider' },
      },
    ]);
    expect(translateAll(events).updates).toEqual([
      { sessionUpdate: 'usage_update', used: 1500, size: 200_000, cost: { amount: 0.02, currency: 'USD' } },
    ]);
  });

  it('passes notices and errors on as ACP notices', () => {
    const events = turn([
      { type: 'notice', kind: 'rate_limit', message: 'Slow down.' },
      { type: 'error', code: 'provider_error', message: 'Upstream hiccup.', fatal: false },
    ]);
    expect(translateAll(events).updates).toEqual([
      { sessionUpdate: 'notice', severity: 'warning', title: 'Slow down.', _meta: { reins: { kind: 'rate_limit' } } },
      {
        sessionUpdate: 'notice',
        severity: 'error',
        title: 'Upstream hiccup.',
        _meta: { reins: { code: 'provider_error', fatal: false } },
      },
    ]);
  });

  it('offers model and effort options, and sends them again only when they change', () => {
    const settings: BridgeSettings = {
      ...SETTINGS,
      effortSwitch: true,
      catalog: [
        { id: 'fake-model', displayName: 'Fake', efforts: ['low', 'high'] },
        { id: 'fake-model-2', efforts: ['medium'] },
      ],
    };
    const state = createBridgeState(settings, { notices: true });
    const stream = new SessionEventStream({
      harness: 'codex',
      sessionId: 's1',
      onEvent: (event) => updates.push(...translateEvent(state, event)),
    });
    const updates: SessionUpdate[] = [];
    stream.emit({ type: 'session.updated', nativeSessionId: 'thread-1', model: 'fake-model', effort: 'low' });
    stream.emit({ type: 'session.updated', model: 'fake-model' });
    stream.emit({ type: 'session.updated', title: 'Fix the build' });
    expect(updates).toEqual([
      {
        sessionUpdate: 'config_option_update',
        configOptions: [
          {
            id: 'model',
            name: 'Model',
            category: 'model',
            type: 'select',
            currentValue: 'fake-model',
            options: [
              { value: 'fake-model', name: 'Fake' },
              { value: 'fake-model-2', name: 'fake-model-2' },
            ],
          },
          {
            id: 'effort',
            name: 'Reasoning effort',
            category: 'thought_level',
            type: 'select',
            currentValue: 'low',
            options: [
              { value: 'low', name: 'low' },
              { value: 'high', name: 'high' },
            ],
          },
        ],
      },
      { sessionUpdate: 'session_info_update', _meta: { reins: { nativeSessionId: 'thread-1' } } },
      { sessionUpdate: 'session_info_update', title: 'Fix the build' },
    ]);
    // An answer that carries the options counts as sent.
    state.settings.model = 'fake-model-2';
    expect(takeConfigOptions(state)[0]).toMatchObject({ currentValue: 'fake-model-2' });
    stream.emit({ type: 'session.updated', model: 'fake-model-2' });
    expect(updates).toHaveLength(3);
  });

  it('offers no model option without a catalog, and a harness-default effort when none is known', () => {
    expect(configOptionsOf({ ...SETTINGS, model: 'm' })).toEqual([]);
    const [effort] = configOptionsOf({ ...SETTINGS, model: 'm', effortSwitch: true });
    expect(effort).toMatchObject({ id: 'effort', currentValue: 'default' });
    expect(effort?.type === 'select' && effort.options[0]).toEqual({ value: 'default', name: 'Harness default' });
  });
});

describe('the session/prompt answer', () => {
  it('completes with end_turn, keeps an ACP stop reason the harness named, and carries full token counts', () => {
    const events = turn([], { status: 'completed' });
    expect(promptAnswer(terminalOf(events))).toEqual({ ok: true, response: { stopReason: 'end_turn' } });
    const capped = terminalOf(turn([], { status: 'completed' }, 'max_tokens'));
    const withUsage = { ...capped, usage: { turn: { input: 10, output: 5, total: 15, cachedInput: 4 } } };
    expect(promptAnswer(withUsage)).toEqual({
      ok: true,
      response: {
        stopReason: 'max_tokens',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedReadTokens: 4 },
      },
    });
    expect(promptAnswer({ ...capped, stopReason: 'stop_sequence' })).toMatchObject({
      response: { stopReason: 'end_turn' },
    });
  });

  it('sends no usage when a required count is absent (absent is not zero)', () => {
    expect(promptUsageOf({ input: 10, output: 5 })).toBeUndefined();
  });

  it('fails with a JSON-RPC error that carries the Reins error', () => {
    const error = { code: 'provider_error' as const, message: 'The model provider failed: 500', retryable: true };
    const events = turn([], { status: 'failed', error });
    expect(promptAnswer(terminalOf(events))).toEqual({
      ok: false,
      error: { code: -32603, message: 'The model provider failed: 500', data: error },
    });
    expect(acpErrorOf({ code: 'invalid_input', message: 'bad' }).code).toBe(-32602);
    expect(acpErrorOf({ code: 'auth_required', message: 'log in' }).code).toBe(-32000);
  });
});

describe('permissions and history', () => {
  it('names the tool call, maps the options, and makes the next update for that call an update', () => {
    const state = createBridgeState(SETTINGS);
    const request = permissionRequestOf(state.tools, {
      type: 'permission.requested',
      seq: 3,
      harness: 'codex',
      sessionId: 's1',
      turnId: 't1',
      at: 0,
      requestId: 'req_1',
      itemId: 'call_1',
      tool: { kind: 'command', name: 'exec_command', title: 'rm -rf build' },
      input: { command: 'rm -rf build' },
      options: [
        { id: 'accept', kind: 'allow_once', label: 'Yes' },
        { id: 'decline', kind: 'reject_once', label: 'No' },
      ],
    });
    expect(request).toEqual({
      toolCall: {
        toolCallId: 'call_1',
        title: 'rm -rf build',
        name: 'exec_command',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'rm -rf build' },
      },
      options: [
        { optionId: 'accept', name: 'Yes', kind: 'allow_once' },
        { optionId: 'decline', name: 'No', kind: 'reject_once' },
      ],
    });
    const [update] = turn([
      {
        type: 'item.started',
        item: { kind: 'tool_call', id: 'call_1', status: 'running', tool: { kind: 'command', name: 'x' }, input: {} },
      },
    ]).flatMap((event) => translateEvent(state, event));
    expect(update?.sessionUpdate).toBe('tool_call_update');
  });

  it('offers a plain allow/reject pair when the harness gave no options', () => {
    const state = createBridgeState(SETTINGS);
    const { options, toolCall } = permissionRequestOf(state.tools, {
      type: 'permission.requested',
      seq: 1,
      harness: 'pi',
      sessionId: 's1',
      turnId: null,
      at: 0,
      requestId: 'r9',
      tool: { kind: 'other', name: 'mystery' },
      options: [],
    });
    expect(toolCall.toolCallId).toBe('permission_r9');
    expect(options.map((option) => option.kind)).toEqual(['allow_once', 'reject_once']);
  });

  it('replays stored history as the user’s and the agent’s words, each once', () => {
    expect(
      historyUpdates([
        { kind: 'user_message', id: 'u1', status: 'completed', text: 'Remember ZEBRA.', replay: true },
        { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Noted.' },
        {
          kind: 'tool_call',
          id: 'c1',
          status: 'completed',
          tool: { kind: 'command', name: 'exec_command' },
          input: { command: 'true' },
        },
      ]).map((update) => update.sessionUpdate),
    ).toEqual(['user_message_chunk', 'agent_message_chunk', 'tool_call']);
  });
});
