// Translation units on frames recorded from the real OpenClaw 2026.9.6 gateway (fixtures/*.2026.9.6.jsonl,
// written by openclaw.real.test.ts with REINS_RECORD_OPENCLAW_FIXTURES=1; the connect token redacted).
// The replay does what the adapter does: chat.send starts a turn with its idempotency key as runId,
// chat.abort marks the interrupt, a terminal ends the turn, usage comes from the recorded chat.history.
import { type ReinsEvent, SessionEventStream } from '@reins/core';
import { assertStreamInvariants, readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import {
  beginOpenClawRun,
  createOpenClawTranslateState,
  openClawHistoryItems,
  openClawRunUsage,
  translateOpenClawEvent,
} from './translate.js';
import type { GatewayEvent } from './wire.js';

type Frame = Record<string, unknown> & { type: string };

function load(name: string): { dir: string; frame: Frame }[] {
  const fixture = readFixtureSync(new URL(`./fixtures/${name}.2026.9.6.jsonl`, import.meta.url));
  expect(fixture.header).toMatchObject({ harness: 'openclaw', package: 'openclaw', version: '2026.9.6' });
  return fixture.frames as { dir: string; frame: Frame }[];
}

function replay(name: string) {
  const rows = load(name);
  const send = rows.find((row) => row.frame.method === 'chat.send')?.frame.params as { sessionKey: string };
  const state = createOpenClawTranslateState(send.sessionKey);
  const events: ReinsEvent[] = [];
  const stream = new SessionEventStream({
    harness: 'openclaw',
    sessionId: 's',
    onEvent: (event) => events.push(event),
  });
  const pendingHistory = new Set<string>();
  let lastRun: string | undefined;
  for (const { dir, frame } of rows) {
    if (dir === 'in' && frame.method === 'chat.send') {
      const params = frame.params as { message: string; idempotencyKey: string };
      beginOpenClawRun(state, params.idempotencyKey);
      stream.startTurn({ text: params.message });
    }
    if (dir === 'in' && frame.method === 'chat.abort') state.interruptRequested = true;
    if (dir === 'in' && frame.method === 'chat.history') pendingHistory.add(frame.id as string);
    if (frame.type === 'res' && pendingHistory.has(frame.id as string) && lastRun) {
      const usage = openClawRunUsage((frame.payload as { messages: unknown[] }).messages, lastRun);
      if (usage) stream.emit({ type: 'usage.updated', ...usage });
    }
    if (frame.type !== 'event') continue;
    const { events: payloads, terminal } = translateOpenClawEvent(state, frame as unknown as GatewayEvent);
    for (const payload of payloads) stream.emit(payload);
    if (terminal) {
      lastRun = terminal.runId;
      stream.completeTurn({
        outcome: terminal.outcome,
        ...(terminal.stopReason ? { stopReason: terminal.stopReason } : {}),
      });
      state.runId = undefined;
    }
  }
  expect(stream.misuse).toEqual([]);
  return { events, rows };
}

const items = (events: ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));
const terminals = (events: ReinsEvent[]) => events.filter((event) => event.type === 'turn.completed');

describe('translateOpenClawEvent on recorded 2026.9.6 frames', () => {
  it('text: agent assistant deltas make one text item; chat final is the terminal; noise is not an event', () => {
    const { events } = replay('text');
    assertStreamInvariants(events, { settled: true });
    expect(items(events)).toEqual([
      expect.objectContaining({ kind: 'agent_message', status: 'completed', text: 'Hello from fake model.' }),
    ]);
    expect(
      events
        .filter((event) => event.type === 'item.delta')
        .map((event) => (event.type === 'item.delta' ? event.text : '')),
    ).toEqual(['Hello from', ' fake model.']);
    expect(terminals(events)).toEqual([
      expect.objectContaining({ outcome: { status: 'completed' }, stopReason: 'stop' }),
    ]);
    expect(events.some((event) => event.type === 'passthrough')).toBe(true); // skills.changed is not known: passed through
  });

  it('tool: one exec command item, output previewed, exit code from command_output end, usage with cost', () => {
    const { events } = replay('tool');
    assertStreamInvariants(events, { settled: true });
    expect(events.filter((event) => event.type === 'item.started' && event.item.kind === 'tool_call')).toHaveLength(1);
    expect(items(events).find((item) => item.kind === 'tool_call')).toEqual({
      kind: 'tool_call',
      id: 'call_scripted_2',
      status: 'completed',
      tool: { kind: 'command', name: 'exec', title: 'Exec print text' },
      output: { text: 'hello-from-tool' },
      exitCode: 0,
    });
    expect(events.find((event) => event.type === 'usage.updated')).toMatchObject({
      turn: { input: expect.any(Number), output: expect.any(Number) },
      costUsd: { currency: 'USD', source: 'provider' },
    });
  });

  it('abort: chat aborted ends the turn cancelled; the next run completes', () => {
    const { events } = replay('abort');
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events).map((event) => (event.type === 'turn.completed' ? event.outcome.status : ''))).toEqual([
      'cancelled',
      'completed',
    ]);
  });

  it('provider error: the chat error sent twice for one run gives one failed terminal', () => {
    const { events, rows } = replay('error');
    const send = rows.find((row) => row.frame.method === 'chat.send');
    const runId = (send?.frame.params as { idempotencyKey?: string } | undefined)?.idempotencyKey;
    const errorFrames = rows.filter(
      (row) =>
        row.frame.event === 'chat' &&
        (row.frame.payload as { state?: string; runId?: string }).state === 'error' &&
        (row.frame.payload as { runId?: string }).runId === runId,
    );
    expect(errorFrames).toHaveLength(2);
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events)[0]).toMatchObject({
      outcome: {
        status: 'failed',
        error: { code: 'provider_error', data: { kind: 'bad_request', failoverReason: 'format', provider: 'fake' } },
      },
    });
  });

  it('ignores events of other session keys', () => {
    const state = createOpenClawTranslateState('agent:main:mine');
    beginOpenClawRun(state, 'run-1');
    const other = {
      type: 'event',
      event: 'chat',
      payload: { runId: 'run-1', sessionKey: 'agent:main:other', state: 'final' },
    } as GatewayEvent;
    expect(translateOpenClawEvent(state, other)).toEqual({ events: [] });
  });

  // What a newer or broken gateway sends (issue 14): nothing throws, nothing invalid is emitted.
  it('marks what 2026.9.6 does not document as unknown, and leaves wrong-typed fields out', () => {
    const state = createOpenClawTranslateState('k');
    beginOpenClawRun(state, 'run-1');
    const future = { type: 'event', event: 'session.rewound', payload: { sessionKey: 'k' } } as GatewayEvent;
    expect(translateOpenClawEvent(state, future)).toEqual({
      events: [{ type: 'passthrough', frame: future, reason: 'unknown' }],
    });
    const chat = (payload: Record<string, unknown>) =>
      translateOpenClawEvent(state, {
        type: 'event',
        event: 'chat',
        payload: { runId: 'run-1', sessionKey: 'k', ...payload },
      });
    expect(chat({ state: 'paused' }).events[0]).toMatchObject({ type: 'passthrough', reason: 'unknown' });
    const failed = chat({ state: 'error', errorMessage: 42, stopReason: ['x'], errorDetail: 'oops' });
    expect(failed.terminal).toEqual({
      runId: 'run-1',
      outcome: {
        status: 'failed',
        error: expect.objectContaining({ code: 'provider_error', message: 'The model provider reported an error.' }),
      },
      stopReason: 'error',
    });
    expect(openClawHistoryItems([{ role: 'assistant', content: [null, { type: 'text', text: 'ok' }] }])).toEqual([
      { kind: 'agent_message', id: 'openclaw-history-0-1', status: 'completed', text: 'ok' },
    ]);
  });
});

describe('openClawHistoryItems', () => {
  it('maps transcript rows, settling tool results onto their calls', () => {
    expect(
      openClawHistoryItems([
        { role: 'user', content: 'Run it.' },
        { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'exec', arguments: { command: 'ls' } }] },
        { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'a.txt' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      ]),
    ).toEqual([
      { kind: 'user_message', id: 'openclaw-history-0', status: 'completed', text: 'Run it.', replay: true },
      {
        kind: 'tool_call',
        id: 'c1',
        status: 'completed',
        tool: { kind: 'command', name: 'exec' },
        input: { command: 'ls' },
        output: { text: 'a.txt' },
      },
      { kind: 'agent_message', id: 'openclaw-history-3-0', status: 'completed', text: 'Done.' },
    ]);
  });
});
