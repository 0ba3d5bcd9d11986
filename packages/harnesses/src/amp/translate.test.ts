// Amp translation units on CONSTRUCTED frames (fixtures/constructed-turns.*.jsonl) that follow Amp's
// documented Claude Code compatible stream-json; no live Amp was observed (it needs its service).
import { type ReinsEvent, SessionEventStream } from '@reins/core';
import { assertStreamInvariants, readFixtureSync } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { ampToolKind, beginAmpTurn, createAmpTranslateState, translateAmpFrame } from './translate.js';

const fixture = readFixtureSync(new URL('./fixtures/constructed-turns.0.0.1790142911-g7618fb.jsonl', import.meta.url));
/** The harness frames of each turn; every "in" user line opens the next turn. */
const turnFrames: unknown[][] = [];
for (const { dir, frame } of fixture.frames) {
  if (dir === 'in') turnFrames.push([]);
  else if (dir === 'out') turnFrames.at(-1)?.push(frame);
}

function replay(turns: number[]): ReinsEvent[] {
  const events: ReinsEvent[] = [];
  const stream = new SessionEventStream({ harness: 'amp', sessionId: 's', onEvent: (event) => events.push(event) });
  const state = createAmpTranslateState();
  for (const turn of turns) {
    beginAmpTurn(state);
    stream.startTurn({ text: `turn ${turn}` });
    for (const frame of turnFrames[turn - 1] ?? []) {
      for (const emission of translateAmpFrame(state, frame)) {
        if (emission.payload.type === 'turn.completed' && stream.activeTurnId === null) continue;
        stream.emit(emission.payload);
      }
    }
  }
  expect(stream.misuse).toEqual([]);
  return events;
}

const terminals = (events: ReinsEvent[]) => events.filter((event) => event.type === 'turn.completed');

describe('Amp terminal rule (settle at the terminal assistant stop)', () => {
  it('ends a text turn at stop_reason end_turn without any result frame', () => {
    const events = replay([1]);
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events)).toEqual([
      expect.objectContaining({ outcome: { status: 'completed' }, stopReason: 'end_turn' }),
    ]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'session.updated', nativeSessionId: 'T-3f1c2a' }));
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'item.completed',
        item: expect.objectContaining({ kind: 'agent_message', text: 'Hello from Amp.' }),
      }),
    );
  });

  it('does not end at a tool_use stop; ends after the tool result and the next end_turn; a late result adds usage only', () => {
    const events = replay([1, 2, 3]);
    assertStreamInvariants(events, { settled: true });
    expect(terminals(events)).toHaveLength(3);
    const tool = events.find((event) => event.type === 'item.completed' && event.item.kind === 'tool_call');
    expect(tool).toMatchObject({
      item: { status: 'completed', tool: { kind: 'command', name: 'Bash' }, output: { text: 'hi\n' } },
    });
    // The shared translation's Claude rule (success => exit 0) is not assumed for Amp.
    expect(tool?.type === 'item.completed' && tool.item.kind === 'tool_call' && tool.item.exitCode).toBeUndefined();
    const usage = events.find((event) => event.type === 'usage.updated');
    expect(usage).toMatchObject({ turnId: null, costUsd: { amount: 0.0021, source: 'provider' } });
    // Turn 3 is its own turn, not swallowed by the late result of turn 2.
    expect(terminals(events).map((event) => event.turnId)).toEqual(['turn_1', 'turn_2', 'turn_3']);
  });

  it('a result that comes first ends the turn itself', () => {
    const state = createAmpTranslateState();
    const out = translateAmpFrame(state, {
      type: 'result',
      subtype: 'success',
      is_error: false,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    expect(out.filter((emission) => emission.payload.type === 'turn.completed')).toHaveLength(1);
  });

  it("a failed result's error names Amp, not Claude Code (the shared translation's messages)", () => {
    const failed = (errors: string[]) => {
      const state = createAmpTranslateState();
      const out = translateAmpFrame(state, {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        errors,
      });
      return out.map((emission) => emission.payload).find((payload) => payload.type === 'turn.completed');
    };
    expect(failed(['boom'])).toMatchObject({
      outcome: {
        status: 'failed',
        error: { code: 'harness_unhealthy', message: 'Amp ended the turn with error_during_execution: boom' },
      },
    });
    expect(failed(['No conversation found with session ID: T-1'])).toMatchObject({
      outcome: {
        status: 'failed',
        error: {
          code: 'resume_failed',
          message: 'Amp could not resume the conversation: No conversation found with session ID: T-1',
        },
      },
    });
  });

  // What a broken Amp sends (issue 14): an assistant message whose content holds null.
  it('an assistant message with null in its content neither throws nor emits an invalid event', () => {
    const state = createAmpTranslateState();
    const frame = { type: 'assistant', message: { id: 'm9', content: [null, { type: 'text', text: 'ok' }] } };
    const out = translateAmpFrame(state, frame).map((emission) => emission.payload);
    expect(out).toContainEqual(
      expect.objectContaining({ type: 'item.completed', item: expect.objectContaining({ text: 'ok' }) }),
    );
    expect(out).toContainEqual({ type: 'passthrough', frame, reason: 'unparsable' });
  });

  it('classifies Amp tool names', () => {
    expect(
      ['Bash', 'create_file', 'edit_file', 'Task', 'web_search', 'todo_write', 'mcp__x__y', 'Read'].map(ampToolKind),
    ).toEqual(['command', 'file_change', 'file_change', 'subagent', 'web_search', 'plan', 'mcp', 'other']);
  });
});

describe('Amp late result after the next turn began', () => {
  it("a result that arrives after Reins sent the next turn is the previous turn's, and ends nothing", () => {
    const state = createAmpTranslateState();
    const assistantStop = {
      type: 'assistant',
      message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' },
      parent_tool_use_id: null,
    };
    const result = { type: 'result', subtype: 'success', is_error: false, result: 'hi', session_id: 'T-1' };
    beginAmpTurn(state);
    const first = translateAmpFrame(state, assistantStop).map((e) => e.payload.type);
    expect(first).toContain('turn.completed');
    beginAmpTurn(state); // the next turn goes out before the late result is read
    const late = translateAmpFrame(state, result).map((e) => e.payload.type);
    expect(late).not.toContain('turn.completed');
    // The new turn still ends at its own assistant stop.
    const second = translateAmpFrame(state, { ...assistantStop, message: { ...assistantStop.message, id: 'm2' } });
    expect(second.map((e) => e.payload.type)).toContain('turn.completed');
  });
});
