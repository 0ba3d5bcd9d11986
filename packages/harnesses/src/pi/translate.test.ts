// Translation units on frames recorded from the real Pi 0.73.1 (fixtures/*.0.73.1.jsonl, written by
// pi.real.test.ts with REINS_RECORD_PI_FIXTURES=1). The replay does what the adapter does: a prompt
// starts a turn, an abort marks the interrupt, and the answer to the get_state barrier settles a
// pending end. Everything goes through SessionEventStream, so seq and the one-terminal rule are real.
import { type EventPayload, type ReinsEvent, SessionEventStream } from '@reins/core';
import { assertStreamInvariants, readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import {
  beginPiTurn,
  createPiTranslateState,
  isTurnEndPending,
  piMessagesToItems,
  piProviderError,
  settleTurn,
  translatePiFrame,
} from './translate.js';
import { PI_EVENT_TYPES } from './wire.js';

interface Recorded {
  dir: 'in' | 'out';
  frame: Record<string, unknown>;
}

function load(name: string): Recorded[] {
  const fixture = readFixtureSync(new URL(`./fixtures/${name}.0.73.1.jsonl`, import.meta.url));
  expect(fixture.header).toMatchObject({ harness: 'pi', package: '@mariozechner/pi-coding-agent', version: '0.73.1' });
  return fixture.frames as Recorded[];
}

function replay(name: string): ReinsEvent[] {
  const events: ReinsEvent[] = [];
  const stream = new SessionEventStream({ harness: 'pi', sessionId: 's', onEvent: (event) => events.push(event) });
  const state = createPiTranslateState();
  const emit = (payloads: EventPayload[]) => {
    for (const payload of payloads) stream.emit(payload);
  };
  for (const { dir, frame } of load(name)) {
    if (dir === 'in') {
      if (frame.type === 'prompt') {
        beginPiTurn(state);
        stream.startTurn({ text: String(frame.message) });
      }
      if (frame.type === 'abort') state.interruptRequested = true;
      continue;
    }
    if (frame.type === 'response') {
      if (frame.command === 'get_state' && isTurnEndPending(state)) emit(settleTurn(state));
      continue;
    }
    emit(translatePiFrame(state, frame));
  }
  expect(stream.misuse).toEqual([]);
  return events;
}

const items = (events: ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));
const terminals = (events: ReinsEvent[]) => events.filter((event) => event.type === 'turn.completed');

describe('translatePiFrame on recorded Pi 0.73.1 frames', () => {
  it('text turn: user message, reasoning and text items with deltas, usage, one completed terminal', () => {
    const events = replay('text');
    assertStreamInvariants(events, { settled: true });
    expect(items(events)).toEqual([
      { kind: 'user_message', id: 'pi-user-1', status: 'completed', text: 'Say hello please.' },
      { kind: 'reasoning', id: 'pi-msg-1-0', status: 'completed', text: 'Thinking about a greeting.' },
      { kind: 'agent_message', id: 'pi-msg-1-1', status: 'completed', text: 'Hello from fake model.' },
    ]);
    const deltas = events.filter((event) => event.type === 'item.delta');
    expect(
      deltas
        .filter((delta) => delta.kind === 'text')
        .map((delta) => delta.text)
        .join(''),
    ).toBe('Hello from fake model.');
    expect(deltas.some((delta) => delta.kind === 'reasoning')).toBe(true);
    expect(events.find((event) => event.type === 'usage.updated')).toMatchObject({
      turn: { input: 101, output: 20, total: 121 },
      context: { used: 121 },
    });
    // The fake model's price table is all zeros: no price known, so no cost (absent, not 0).
    expect(events.find((event) => event.type === 'usage.updated')).not.toHaveProperty('costUsd');
    expect(terminals(events)).toEqual([
      expect.objectContaining({
        outcome: { status: 'completed' },
        stopReason: 'stop',
        usage: { turn: expect.any(Object) },
      }),
    ]);
  });

  it('bash tool: one command item from toolcall_start to tool_execution_end, output previewed then settled', () => {
    const events = replay('bash');
    assertStreamInvariants(events, { settled: true });
    const started = events.filter((event) => event.type === 'item.started' && event.item.kind === 'tool_call');
    expect(started).toHaveLength(1);
    const tool = items(events).find((item) => item.kind === 'tool_call');
    expect(tool).toMatchObject({
      status: 'completed',
      tool: { kind: 'command', name: 'bash' },
      input: { command: 'echo hello-from-tool' },
      output: { text: 'hello-from-tool\n' },
    });
    expect(tool).not.toHaveProperty('exitCode');
    expect(terminals(events)).toHaveLength(1);
  });

  it('failing bash: failed item with the exit code Pi wrote in its status line', () => {
    const events = replay('bash-exit');
    assertStreamInvariants(events, { settled: true });
    expect(items(events).find((item) => item.kind === 'tool_call')).toMatchObject({ status: 'failed', exitCode: 3 });
  });

  it('write tool: a file_change item with the path', () => {
    const events = replay('write');
    assertStreamInvariants(events, { settled: true });
    expect(items(events).find((item) => item.kind === 'tool_call')).toMatchObject({
      status: 'completed',
      tool: { kind: 'file_change', name: 'write' },
      changes: [{ path: 'written-by-tool.txt', kind: 'add' }],
    });
  });

  it('abort: the first turn ends cancelled (stopReason aborted), the next completes', () => {
    const events = replay('abort');
    assertStreamInvariants(events, { settled: true });
    expect(
      terminals(events).map((event) => [event.type === 'turn.completed' && event.outcome.status, event.turnId]),
    ).toEqual([
      ['cancelled', 'turn_1'],
      ['completed', 'turn_2'],
    ]);
    const cancelledText = items(events).find((item) => item.kind === 'agent_message' && item.status === 'cancelled');
    expect(cancelledText).toBeDefined();
  });

  it('steer: the steering message becomes a user_message inside the same turn', () => {
    const events = replay('steer');
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events)).toHaveLength(1);
    const steer = items(events).find((item) => item.kind === 'user_message' && item.text === 'Also mention bananas.');
    expect(steer).toBeDefined();
    expect(events.find((event) => event.type === 'item.completed' && event.item === steer)?.turnId).toBe('turn_1');
  });

  it('provider error with retries: three agent_end frames, one failed terminal after auto_retry_end', () => {
    const frames = load('retry-fail');
    expect(frames.filter((entry) => entry.frame.type === 'agent_end')).toHaveLength(3);
    const events = replay('retry-fail');
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events)).toEqual([
      expect.objectContaining({
        outcome: {
          status: 'failed',
          error: expect.objectContaining({
            code: 'provider_error',
            message: '500 scripted 500 error',
            retryable: true,
            data: { kind: 'server_error', status: 500, attempts: 2 },
          }),
        },
        stopReason: 'error',
      }),
    ]);
    expect(events.filter((event) => event.type === 'notice' && event.kind === 'retry')).toHaveLength(3);
  });
});

describe('turn boundary rule (constructed frames)', () => {
  const assistant = (stopReason: string, errorMessage?: string) => ({
    role: 'assistant',
    content: [],
    stopReason,
    ...(errorMessage ? { errorMessage } : {}),
  });

  it('agent_end alone only makes the end pending; the barrier settles it', () => {
    const state = createPiTranslateState();
    expect(translatePiFrame(state, { type: 'agent_end', messages: [assistant('stop')] })).toEqual([]);
    expect(isTurnEndPending(state)).toBe(true);
    expect(settleTurn(state)).toEqual([
      { type: 'session.status', status: 'idle' },
      { type: 'turn.completed', outcome: { status: 'completed' }, stopReason: 'stop' },
    ]);
    expect(settleTurn(state)).toEqual([]);
  });

  it('auto_retry_start after agent_end cancels the pending end', () => {
    const state = createPiTranslateState();
    translatePiFrame(state, { type: 'agent_end', messages: [assistant('error', '503 overloaded')] });
    const notice = translatePiFrame(state, {
      type: 'auto_retry_start',
      attempt: 1,
      maxAttempts: 3,
      delayMs: 2000,
      errorMessage: '503 overloaded',
    });
    expect(notice).toEqual([expect.objectContaining({ type: 'notice', kind: 'retry' })]);
    expect(settleTurn(state)).toEqual([]);
  });

  it('a non-retryable error (nothing follows agent_end) fails the turn at the barrier', () => {
    const state = createPiTranslateState();
    translatePiFrame(state, {
      type: 'agent_end',
      messages: [assistant('error', '400 bad request: invalid tool schema')],
    });
    expect(settleTurn(state)).toContainEqual(
      expect.objectContaining({
        type: 'turn.completed',
        outcome: { status: 'failed', error: expect.objectContaining({ data: { kind: 'bad_request', status: 400 } }) },
      }),
    );
  });

  it('a retry wait cancelled by interrupt ends cancelled, not failed', () => {
    const state = createPiTranslateState();
    state.interruptRequested = true;
    const events = translatePiFrame(state, {
      type: 'auto_retry_end',
      success: false,
      attempt: 1,
      finalError: 'Retry cancelled',
    });
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', outcome: { status: 'cancelled' } });
  });

  it('every event type Pi declares has its own translation (none passes through as unknown)', () => {
    expect(PI_EVENT_TYPES.size).toBeGreaterThan(0);
    for (const type of PI_EVENT_TYPES) {
      const payloads = translatePiFrame(createPiTranslateState(), { type });
      expect({
        type,
        unknown: payloads.some((payload) => payload.type === 'passthrough' && payload.reason === 'unknown'),
      }).toEqual({
        type,
        unknown: false,
      });
    }
  });

  it('a bash status line with an exit code no process returns (past int32) gives no exit code', () => {
    const state = createPiTranslateState();
    let calls = 0;
    const end = (text: string) =>
      translatePiFrame(state, {
        type: 'tool_execution_end',
        toolCallId: `call-${++calls}`,
        toolName: 'bash',
        isError: true,
        result: { content: [{ type: 'text', text }] },
      }).find((payload) => payload.type === 'item.completed');
    expect(end('boom\n\nCommand exited with code 2147483647')).toMatchObject({ item: { exitCode: 2147483647 } });
    for (const digits of ['2147483648', '99999999999999999999', '9'.repeat(400)]) {
      const completed = end(`boom\n\nCommand exited with code ${digits}`);
      expect(completed).toMatchObject({ item: { status: 'failed' } });
      expect(completed && 'item' in completed ? completed.item : undefined).not.toHaveProperty('exitCode');
    }
  });

  it('unknown frames and unknown message_update kinds pass through', () => {
    const state = createPiTranslateState();
    expect(translatePiFrame(state, { type: 'agent_settled' })).toEqual([
      { type: 'passthrough', frame: { type: 'agent_settled' }, reason: 'unknown' },
    ]);
    const update = {
      type: 'message_update',
      message: { role: 'assistant', content: [] },
      assistantMessageEvent: { type: 'image_delta' },
    };
    expect(translatePiFrame(state, update)).toEqual([{ type: 'passthrough', frame: update, reason: 'unknown' }]);
  });

  // What a newer or broken Pi sends (issue 14): nothing throws, nothing invalid is emitted.
  it.each([
    ['a message_start with nothing else', { type: 'message_start' }],
    ['a message_update with no assistantMessageEvent', { type: 'message_update', message: { role: 'assistant' } }],
    [
      'a text delta with no contentIndex',
      { type: 'message_update', message: {}, assistantMessageEvent: { type: 'text_delta', delta: 'x' } },
    ],
    ['a tool event with no toolCallId', { type: 'tool_execution_start', toolName: 'bash' }],
    ['a thinking level that is not a string', { type: 'thinking_level_changed', level: 3 }],
  ])('passes %s through as unparsable', (_what, frame) => {
    const state = createPiTranslateState();
    expect(translatePiFrame(state, frame)).toEqual([{ type: 'passthrough', frame, reason: 'unparsable' }]);
  });

  it('a re-sent block end or tool end is a duplicate, and a lost message_start does not reuse item ids', () => {
    const state = createPiTranslateState();
    const end = {
      type: 'message_update',
      message: {},
      assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: 'hi' },
    };
    translatePiFrame(state, { type: 'message_start', message: { role: 'assistant' } });
    expect(translatePiFrame(state, end).map((payload) => payload.type)).toEqual(['item.started', 'item.completed']);
    expect(translatePiFrame(state, end)).toEqual([{ type: 'passthrough', frame: end, reason: 'duplicate' }]);
    // The next message's message_start is lost: its first block must not get pi-msg-1-0 again.
    state.endedBlocks?.clear();
    const [started] = translatePiFrame(state, end);
    expect(started).toMatchObject({ type: 'item.started', item: { id: 'pi-msg-1-0#2' } });
    const toolEnd = { type: 'tool_execution_end', toolCallId: 't1', toolName: 'bash', result: { content: [] } };
    expect(translatePiFrame(state, toolEnd).map((payload) => payload.type)).toEqual(['item.started', 'item.completed']);
    expect(translatePiFrame(state, toolEnd)).toEqual([{ type: 'passthrough', frame: toolEnd, reason: 'duplicate' }]);
  });

  it('usage: negative or wrong-typed counts and a non-number context window stay absent', () => {
    const state = createPiTranslateState();
    state.contextWindow = 'big' as unknown as number;
    translatePiFrame(state, { type: 'message_start', message: { role: 'assistant' } });
    const [usage] = translatePiFrame(state, {
      type: 'message_end',
      message: {
        role: 'assistant',
        content: [],
        usage: { input: -4, output: 'x', totalTokens: 10, cost: { total: -1 } },
      },
    });
    expect(usage).toEqual({ type: 'usage.updated', turn: { total: 10 }, context: { used: 10 } });
  });
});

describe('piProviderError', () => {
  it.each([
    ['429 Too Many Requests', 'rate_limited'],
    ['529 {"type":"overloaded_error"}', 'overloaded'],
    ['500 fake server error 500', 'server_error'],
    ['400 This model maximum context length is 8192 tokens', 'context_window_exceeded'],
    ['400 fake invalid_request 400', 'bad_request'],
    ['fetch failed', 'connection_failed'],
    ['something odd', 'unknown'],
    // Pi's own words, beside the shared rules.
    ['Provider context overflow after 9000 tokens', 'context_window_exceeded'],
    ['Service Unavailable', 'server_error'],
    ['connection reset by peer', 'connection_failed'],
  ])('%s -> %s', (message, kind) => {
    expect(piProviderError(message)).toMatchObject({ code: 'provider_error', message, data: { kind } });
  });
});

describe('piMessagesToItems', () => {
  it('turns stored messages into replayed items, tool results settled onto their calls', () => {
    const history = piMessagesToItems([
      { role: 'user', content: [{ type: 'text', text: 'Run it.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use bash.' },
          { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'ls' } },
        ],
      },
      { role: 'toolResult', toolCallId: 'call_1', toolName: 'bash', content: [{ type: 'text', text: 'a.txt\n' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    expect(history).toEqual([
      { kind: 'user_message', id: 'pi-history-0', status: 'completed', text: 'Run it.', replay: true },
      { kind: 'reasoning', id: 'pi-history-1-0', status: 'completed', text: 'Use bash.' },
      {
        kind: 'tool_call',
        id: 'call_1',
        status: 'completed',
        tool: { kind: 'command', name: 'bash' },
        input: { command: 'ls' },
        output: { text: 'a.txt\n' },
      },
      { kind: 'agent_message', id: 'pi-history-3-0', status: 'completed', text: 'Done.' },
    ]);
  });
});
