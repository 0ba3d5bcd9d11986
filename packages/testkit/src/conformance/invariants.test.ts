import { type EventPayload, type ReinsEvent, SessionEventStream } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { assertStreamInvariants, streamViolations } from './invariants.js';

function log(build: (s: SessionEventStream) => void): ReinsEvent[] {
  const events: ReinsEvent[] = [];
  const stream = new SessionEventStream({ harness: 'codex', sessionId: 's', onEvent: (e) => events.push(e) });
  build(stream);
  return events;
}

const message = (id: string, text: string): EventPayload => ({
  type: 'item.completed',
  item: { kind: 'agent_message', id, status: 'completed', text },
});

describe('streamViolations', () => {
  it('accepts a well-formed stream made by the core helper', () => {
    const events = log((s) => {
      s.startTurn({ text: 'a' });
      s.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm', status: 'running', text: '' } });
      s.emit(message('m', 'hi'));
      s.completeTurn({ outcome: { status: 'completed' } });
      s.close('requested');
    });
    expect(streamViolations(events)).toEqual([]);
  });

  it('finds gaps, second terminals, open items, duplicated text and id changes', () => {
    const events = log((s) => {
      s.startTurn({ text: 'a' });
      s.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm', status: 'running', text: '' } });
      s.emit({ type: 'item.started', item: { kind: 'reasoning', id: 'r', status: 'running', text: '' } });
      s.emit({ type: 'item.completed', item: { kind: 'reasoning', id: 'm', status: 'completed', text: 'x' } });
      s.emit(message('m2', 'same'));
      s.emit(message('m3', 'same'));
    });
    // Forge what the helper refuses to produce: a gap and a terminal with an item still open.
    const forged: ReinsEvent[] = [
      ...events,
      {
        ...(events[0] as ReinsEvent),
        seq: events.length + 2,
        type: 'turn.completed',
        outcome: { status: 'completed' },
      } as ReinsEvent,
    ];
    const problems = streamViolations(forged).join('\n');
    expect(problems).toMatch(/gap or reorder/);
    expect(problems).toMatch(/started as agent_message, completed as reasoning/);
    expect(problems).toMatch(/assistant text repeated/);
    expect(problems).toMatch(/reasoning item r still open at turn end/);
  });

  it('allows the same text again after another item settled in between (a retry), not back to back', () => {
    const events = log((s) => {
      s.startTurn({ text: 'a' });
      s.emit(message('m1', 'same'));
      s.emit({
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't',
          status: 'failed',
          tool: { kind: 'other', name: 'StructuredOutput' },
          input: {},
        },
      });
      s.emit(message('m2', 'same'));
      s.completeTurn({ outcome: { status: 'completed' } });
    });
    expect(streamViolations(events)).toEqual([]);
  });

  it('flags events after a turn finished and a close without terminal', () => {
    const events = log((s) => {
      s.startTurn({ text: 'a' });
      s.completeTurn({ outcome: { status: 'completed' } });
    });
    const late = { ...(events[1] as ReinsEvent), seq: 3, type: 'notice', kind: 'info', message: 'late' } as ReinsEvent;
    expect(streamViolations([...events, late]).join('\n')).toMatch(/event for finished turn turn_1/);
    const open = log((s) => s.startTurn({ text: 'a' }));
    const closed = {
      ...(open[0] as ReinsEvent),
      seq: 2,
      turnId: null,
      type: 'session.closed',
      reason: 'requested',
    } as ReinsEvent;
    expect(streamViolations([...open, closed]).join('\n')).toMatch(/had no terminal/);
  });

  it('names a terminal for a turn that never started, a turn completed twice and a turn started twice', () => {
    const events = log((s) => {
      s.startTurn({ text: 'a' });
      s.completeTurn({ outcome: { status: 'completed' } });
    });
    const [started, completed] = events as [ReinsEvent, ReinsEvent];
    const orphan = { ...completed, seq: 1, turnId: 'turn_9' } as ReinsEvent;
    expect(streamViolations([orphan])).toEqual(['seq 1 (turn.completed): turn turn_9 completed but never started']);
    const again = [...events, { ...completed, seq: 3 }, { ...started, seq: 4 }] as ReinsEvent[];
    const problems = streamViolations(again).join('\n');
    expect(problems).toMatch(/turn turn_1 completed twice/);
    expect(problems).toMatch(/turn turn_1 started twice/);
    const noId = { ...completed, seq: 1, turnId: null } as ReinsEvent;
    expect(streamViolations([noId])).toEqual(['seq 1 (turn.completed): turn.completed without a turnId']);
  });

  it('settled: a turn still without its terminal is a violation, though the stream has not closed', () => {
    const running = log((s) => {
      s.startTurn({ text: 'a' });
      s.emit(message('m', 'partial'));
    });
    // Mid-session a running turn is normal...
    expect(streamViolations(running)).toEqual([]);
    // ...but not where every awaited terminal has arrived.
    expect(streamViolations(running, { settled: true })).toEqual(['turn turn_1 never completed']);
    const done = log((s) => {
      s.startTurn({ text: 'a' });
      s.completeTurn({ outcome: { status: 'completed' } });
    });
    expect(streamViolations(done, { settled: true })).toEqual([]);
  });

  it('background work may outlive its turn when it completes outside any turn, not when it never completes', () => {
    const task = { kind: 'tool_call' as const, id: 't', tool: { kind: 'subagent' as const, name: 'Task' }, input: {} };
    const outlived = (complete: boolean) =>
      log((s) => {
        s.startTurn({ text: 'a' });
        s.emit({ type: 'item.started', item: { ...task, status: 'running' } });
        s.keepAfterTurn('t');
        s.completeTurn({ outcome: { status: 'completed' } });
        // (closing the session would complete it too: the core stream ends background work with the session)
        if (complete) s.emit({ type: 'item.completed', item: { ...task, status: 'completed' } });
      });
    expect(streamViolations(outlived(true))).toEqual([]);
    expect(streamViolations(outlived(false))).toEqual([
      'seq 3 (turn.completed): tool_call item t still open at turn end',
    ]);
  });

  it('assertStreamInvariants throws with every problem listed', () => {
    const running = log((s) => s.startTurn({ text: 'a' }));
    expect(() => assertStreamInvariants(running)).not.toThrow();
    expect(() => assertStreamInvariants(running, { settled: true })).toThrow(
      /breaks the Reins contract:\n- turn turn_1 never completed/,
    );
  });
});
