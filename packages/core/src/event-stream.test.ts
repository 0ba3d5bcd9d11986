import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './async-queue.js';
import { isGuardedEvents, SessionEventStream } from './event-stream.js';
import type { ReinsEvent } from './events.js';
import { ReinsEventSchema } from './events.js';

function stream(options: Partial<ConstructorParameters<typeof SessionEventStream>[0]> = {}) {
  let clock = 1000;
  return new SessionEventStream({ harness: 'codex', sessionId: 's1', now: () => clock++, ...options });
}

async function drain(s: SessionEventStream): Promise<ReinsEvent[]> {
  const out: ReinsEvent[] = [];
  for await (const event of s.events) out.push(event);
  return out;
}

describe('SessionEventStream', () => {
  it('stamps the envelope with gap-free seq, the turn id and the native frame', async () => {
    const s = stream();
    s.emit({ type: 'session.started', cwd: '/w' });
    const turnId = s.startTurn({ text: 'hi' });
    s.emit(
      { type: 'item.delta', itemId: 'm1', kind: 'text', text: 'he' },
      { native: { source: 'x', frame: { a: 1 } } },
    );
    s.completeTurn({ outcome: { status: 'completed' } });
    s.close('requested');
    const events = await drain(s);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'turn.started',
      'item.delta',
      'turn.completed',
      'session.closed',
    ]);
    expect(turnId).toBe('turn_1');
    expect(events[0]?.turnId).toBeNull();
    expect(events[2]).toMatchObject({ turnId: 'turn_1', harness: 'codex', sessionId: 's1', at: 1002 });
    expect(events[2]?.native).toEqual({ source: 'x', frame: { a: 1 } });
    expect(events[3]?.turnId).toBe('turn_1');
    expect(events[4]?.turnId).toBeNull();
    for (const event of events) expect(() => ReinsEventSchema.parse(event)).not.toThrow();
  });

  it('drops native frames when asked, except on passthrough events', async () => {
    const s = stream({ keepNative: false });
    const native = { source: 'x', frame: { big: 'frame' } };
    s.emit({ type: 'notice', kind: 'info', message: 'm' }, { native });
    s.emit({ type: 'passthrough', frame: native.frame }, { native });
    s.close('requested');
    const [notice, passthrough] = await drain(s);
    expect(notice?.native).toBeUndefined();
    expect(passthrough?.native).toEqual(native);
  });

  it('rejects a second terminal for the same turn instead of emitting it', async () => {
    const s = stream();
    s.startTurn({ text: 'a' });
    expect(s.completeTurn({ outcome: { status: 'completed' } })).toBe(true);
    expect(s.completeTurn({ outcome: { status: 'cancelled' } })).toBe(false);
    s.emit({ type: 'turn.completed', outcome: { status: 'completed' } });
    s.close('requested');
    const events = await drain(s);
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    expect(s.misuse).toHaveLength(2);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('rejects starting a turn while one runs', () => {
    const s = stream();
    expect(s.startTurn({ text: 'a' })).toBe('turn_1');
    expect(s.startTurn({ text: 'b' })).toBeUndefined();
    expect(s.misuse[0]).toMatch(/still running/);
  });

  it('closes items left open at turn end with a status that follows the outcome', async () => {
    const s = stream();
    s.startTurn({ text: 'a' });
    s.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } });
    s.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'Hel' });
    s.emit({ type: 'item.delta', itemId: 'm1', kind: 'text', text: 'lo' });
    s.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't1', status: 'running', tool: { kind: 'command', name: 'sh' }, input: {} },
    });
    s.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't2', status: 'running', tool: { kind: 'command', name: 'sh' }, input: {} },
    });
    s.emit({
      type: 'item.completed',
      item: { kind: 'tool_call', id: 't2', status: 'completed', tool: { kind: 'command', name: 'sh' }, input: {} },
    });
    s.completeTurn({ outcome: { status: 'cancelled' } });
    s.close('requested');
    const events = await drain(s);
    const completed = events.filter((e) => e.type === 'item.completed').map((e) => e.item);
    expect(completed).toEqual([
      { kind: 'tool_call', id: 't2', status: 'completed', tool: { kind: 'command', name: 'sh' }, input: {} },
      { kind: 'agent_message', id: 'm1', status: 'cancelled', text: 'Hello' },
      { kind: 'tool_call', id: 't1', status: 'cancelled', tool: { kind: 'command', name: 'sh' }, input: {} },
    ]);
    // The closing item.completed events come before the terminal.
    expect(events.at(-2)?.type).toBe('turn.completed');
  });

  it('an item the stream closes carries the text its deltas streamed, kept after its turn too, and the emitted start stays as it was', async () => {
    const s = stream();
    s.startTurn({ text: 'a' });
    const started = { kind: 'reasoning' as const, id: 'r', status: 'running' as const, text: 'Th' };
    s.emit({ type: 'item.started', item: started });
    s.emit({ type: 'item.delta', itemId: 'r', kind: 'reasoning', text: 'in' });
    s.emit({ type: 'item.delta', itemId: 'r', kind: 'tool_input', text: 'not text' });
    s.emit({ type: 'item.delta', itemId: 'r', kind: 'reasoning', text: 'king' });
    s.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm', status: 'running', text: '' } });
    s.emit({ type: 'item.delta', itemId: 'm', kind: 'text', text: 'Work' });
    s.emit({ type: 'item.delta', itemId: 'other', kind: 'text', text: 'elsewhere' });
    expect(s.keepAfterTurn('m')).toBe(true);
    // After the move a delta does not reach the kept item: it has its text from before the turn ended.
    s.emit({ type: 'item.delta', itemId: 'm', kind: 'text', text: ' on' }, { background: true });
    s.completeTurn({ outcome: { status: 'completed' } });
    s.close('process_exited', { code: 'process_exited', message: 'gone' });
    const events = await drain(s);
    const completed = events.flatMap((e) => (e.type === 'item.completed' ? [e.item] : []));
    expect(completed).toEqual([
      { kind: 'reasoning', id: 'r', status: 'completed', text: 'Thinking' },
      { kind: 'agent_message', id: 'm', status: 'failed', text: 'Work' },
    ]);
    expect(started).toEqual({ kind: 'reasoning', id: 'r', status: 'running', text: 'Th' });
    const start = events.find((e) => e.type === 'item.started' && e.item.id === 'r');
    expect(start?.type === 'item.started' ? start.item : undefined).toMatchObject({ text: 'Th' });
  });

  it('keeps every delta of a long message, in order, for the item it closes', async () => {
    for (const count of [63, 64, 65, 200, 4097]) {
      const s = stream();
      s.startTurn({ text: 'a' });
      s.emit({ type: 'item.started', item: { kind: 'agent_message', id: 'm', status: 'running', text: '>' } });
      const pieces = Array.from({ length: count }, (_, index) => `${index},`);
      for (const text of pieces) s.emit({ type: 'item.delta', itemId: 'm', kind: 'text', text });
      s.close('requested');
      const closed = (await drain(s)).find((e) => e.type === 'item.completed');
      expect(closed?.type === 'item.completed' ? closed.item : undefined, `${count} deltas`).toMatchObject({
        text: `>${pieces.join('')}`,
        status: 'cancelled',
      });
    }
  });

  it('a completed turn closes unsettled tool calls as cancelled and text items as completed', async () => {
    const s = stream();
    s.startTurn({ text: 'a' });
    s.emit({ type: 'item.started', item: { kind: 'reasoning', id: 'r', status: 'running', text: 'x' } });
    s.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 't', status: 'running', tool: { kind: 'other', name: 'n' }, input: null },
    });
    s.completeTurn({ outcome: { status: 'completed' } });
    s.close('requested');
    const statuses = (await drain(s)).flatMap((e) => (e.type === 'item.completed' ? [e.item.status] : []));
    expect(statuses).toEqual(['completed', 'cancelled']);
  });

  it('background work: an item kept after its turn stays open, background events carry turnId null', async () => {
    const s = stream();
    const task = {
      kind: 'tool_call' as const,
      id: 'task',
      tool: { kind: 'subagent' as const, name: 'Task' },
      input: {},
    };
    const shell = { kind: 'tool_call' as const, id: 'sh', tool: { kind: 'command' as const, name: 'Bash' }, input: {} };
    s.startTurn({ text: 'a' });
    s.emit({ type: 'item.started', item: { ...task, status: 'running' } });
    expect(s.keepAfterTurn('task')).toBe(true);
    expect(s.keepAfterTurn('not-open')).toBe(false);
    s.completeTurn({ outcome: { status: 'completed' } });
    s.startTurn({ text: 'b' });
    // Started while turn 2 runs, but it is the background task's work: not turn 2's, not closed by its end.
    s.emit({ type: 'item.started', item: { ...shell, status: 'running' } }, { background: true, parentItemId: 'task' });
    s.completeTurn({ outcome: { status: 'cancelled' } });
    s.emit({ type: 'item.completed', item: { ...shell, status: 'completed' } }, { parentItemId: 'task' });
    s.emit({ type: 'item.completed', item: { ...task, status: 'completed' } });
    s.close('requested');
    const events = await drain(s);
    const items = events.flatMap((e) => (e.type === 'item.completed' ? [[e.item.id, e.item.status, e.turnId]] : []));
    expect(items).toEqual([
      ['sh', 'completed', null],
      ['task', 'completed', null],
    ]);
    expect(events.find((e) => e.type === 'item.started' && e.item.id === 'sh')?.turnId).toBeNull();
  });

  it('background work still open when the session ends is closed with it', async () => {
    const task = {
      kind: 'tool_call' as const,
      id: 'task',
      tool: { kind: 'subagent' as const, name: 'Task' },
      input: {},
    };
    for (const [reason, status] of [
      ['requested', 'cancelled'],
      ['process_exited', 'failed'],
    ] as const) {
      const s = stream();
      s.startTurn({ text: 'a' });
      s.emit({ type: 'item.started', item: { ...task, status: 'running' } });
      s.keepAfterTurn('task');
      s.completeTurn({ outcome: { status: 'completed' } });
      s.close(reason);
      const events = await drain(s);
      expect(events.slice(-2).map((e) => (e.type === 'item.completed' ? e.item.status : e.type))).toEqual([
        status,
        'session.closed',
      ]);
    }
  });

  it('close during a turn fails it with process_exited unless the close was requested', async () => {
    const crashed = stream();
    crashed.startTurn({ text: 'a' });
    crashed.close('process_exited');
    const events = await drain(crashed);
    const terminal = events.find((e) => e.type === 'turn.completed');
    expect(terminal?.type === 'turn.completed' && terminal.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'process_exited' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });

    const requested = stream();
    requested.startTurn({ text: 'a' });
    requested.close('requested');
    const outcome = (await drain(requested)).find((e) => e.type === 'turn.completed');
    expect(outcome?.type === 'turn.completed' && outcome.outcome.status).toBe('cancelled');
  });

  it('refuses events after close', async () => {
    const s = stream();
    s.close('requested');
    expect(s.emit({ type: 'notice', kind: 'info', message: 'late' })).toBeUndefined();
    expect(s.startTurn({ text: 'late' })).toBeUndefined();
    expect(await drain(s)).toHaveLength(1);
    expect(s.misuse).toHaveLength(2);
  });

  it('allows one consumer only', () => {
    const s = stream();
    s.events[Symbol.asyncIterator]();
    expect(() => s.events[Symbol.asyncIterator]()).toThrow(/already has a consumer/);
  });

  it('tells the producer to pause past the high-water mark and resumes when drained', async () => {
    const s = stream({ highWaterMark: 3 });
    for (let i = 0; i < 5; i++) s.emit({ type: 'notice', kind: 'info', message: String(i) });
    let drained = false;
    const waiting = s.whenDrained().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    const iterator = s.events[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.next();
    await waiting;
    expect(drained).toBe(true);
  });
});

describe('isGuardedEvents', () => {
  it("vouches for a stream's own events only", async () => {
    const s = stream();
    expect(isGuardedEvents(s.events)).toBe(true);
    async function* relayed() {
      yield* s.events;
    }
    expect(isGuardedEvents(relayed())).toBe(false);
    expect(isGuardedEvents(new AsyncQueue<ReinsEvent>())).toBe(false);
    expect(isGuardedEvents(stream().events)).toBe(true);
  });
});
