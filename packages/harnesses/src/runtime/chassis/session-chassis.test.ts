import { type ReinsEvent, ReinsEventSchema } from '@reins/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamViolations } from '../../../../testkit/src/conformance/invariants.js';
import type { CommitEmission, FrameSink } from './held-emissions.js';
import { type ChassisTurn, SessionChassis, type TurnHost } from './session-chassis.js';

/** An in-memory harness: records what reached it and lets the test end turns when it wants. */
class FakeHarness implements TurnHost {
  begun: ChassisTurn[] = [];
  interrupted: string[] = [];
  abandonedTurns: string[] = [];
  steerAccepted = true;
  interruptEndsTurn = true;
  chassis!: SessionChassis;

  beginTurn(turn: ChassisTurn): void {
    this.begun.push(turn);
  }
  async interruptTurn(turn: ChassisTurn): Promise<void> {
    this.interrupted.push(turn.turnId);
    if (this.interruptEndsTurn) this.chassis.complete(turn, { outcome: { status: 'cancelled' } });
  }
  async steerTurn(): Promise<boolean> {
    return this.steerAccepted;
  }
  turnAbandoned(turn: ChassisTurn): void | Promise<void> {
    this.abandonedTurns.push(turn.turnId);
  }
  /** The harness's own terminal for the running turn. */
  finish(text?: string): void {
    const turn = this.chassis.running;
    if (!turn) throw new Error('no running turn');
    if (text !== undefined) {
      const item = { kind: 'agent_message' as const, id: `${turn.turnId}:a`, status: 'completed' as const, text };
      this.chassis.stream.emit({ type: 'item.completed', item });
    }
    this.chassis.complete(turn, { outcome: { status: 'completed' } });
  }
}

function setup(options: Partial<ConstructorParameters<typeof SessionChassis>[1]> = {}) {
  const harness = new FakeHarness();
  const chassis = new SessionChassis(harness, {
    harness: 'codex',
    displayName: 'Fake',
    sessionId: 's1',
    structuredOutput: 'emulated',
    ...options,
  });
  harness.chassis = chassis;
  const events: ReinsEvent[] = [];
  void (async () => {
    for await (const event of chassis.events) events.push(event);
  })();
  return { harness, chassis, events };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function terminals(events: ReinsEvent[]) {
  return events
    .filter((e) => e.type === 'turn.completed')
    .map((e) => `${e.turnId}:${e.type === 'turn.completed' ? e.outcome.status : ''}`);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionChassis', () => {
  it('starts the first turn, queues the rest, and gives every turn a user_message item with its clientMessageId', async () => {
    const { harness, chassis, events } = setup();
    expect(await chassis.send('one', { clientMessageId: 'c1' })).toEqual({ turnId: 'turn_1', delivery: 'started' });
    expect(await chassis.send('two', { clientMessageId: 'c2' })).toEqual({ turnId: 'turn_2', delivery: 'queued' });
    expect(harness.begun.map((t) => t.input.text)).toEqual(['one']);
    harness.finish('hi');
    await tick();
    expect(harness.begun.map((t) => t.input.text)).toEqual(['one', 'two']);
    harness.finish('there');
    await tick();
    const messages = events.filter((e) => e.type === 'item.completed' && e.item.kind === 'user_message');
    expect(messages.map((e) => (e.type === 'item.completed' ? [e.turnId, e.item] : undefined))).toEqual([
      ['turn_1', { kind: 'user_message', id: 'turn_1:input', status: 'completed', text: 'one', clientMessageId: 'c1' }],
      ['turn_2', { kind: 'user_message', id: 'turn_2:input', status: 'completed', text: 'two', clientMessageId: 'c2' }],
    ]);
    expect(streamViolations(events, { settled: true })).toEqual([]);
  });

  it('refuses bad input with invalid_input before anything is queued', async () => {
    const { harness, chassis } = setup();
    await expect(chassis.send('   ')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(chassis.send({ text: 5 } as never)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(chassis.send('x', { mode: 'sideways' } as never)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(harness.begun).toEqual([]);
  });

  it('interrupt ends the running turn AND every queued turn cancelled, each with one terminal', async () => {
    const { harness, chassis, events } = setup();
    await chassis.send('one');
    await chassis.send('two', { clientMessageId: 'c2' });
    await chassis.send('three');
    await chassis.interrupt();
    await tick();
    expect(harness.interrupted).toEqual(['turn_1']);
    expect(terminals(events)).toEqual(['turn_1:cancelled', 'turn_2:cancelled', 'turn_3:cancelled']);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1']);
    const cancelledMessage = events.find((e) => e.type === 'item.completed' && e.turnId === 'turn_2');
    expect(cancelledMessage).toMatchObject({
      item: { kind: 'user_message', status: 'cancelled', clientMessageId: 'c2' },
    });
    // The session goes on.
    await chassis.send('four');
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1', 'turn_4']);
    expect(streamViolations(events)).toEqual([]);
  });

  it('ends an interrupted turn itself when the harness sends no terminal within the grace period', async () => {
    vi.useFakeTimers();
    const { harness, chassis, events } = setup({ interruptGraceMs: 1000 });
    harness.interruptEndsTurn = false;
    await chassis.send('one');
    await chassis.send('two');
    await chassis.interrupt();
    expect(terminals(events)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(terminals(events)).toEqual(['turn_1:cancelled', 'turn_2:cancelled']);
    expect(harness.abandonedTurns).toEqual(['turn_1']);
    // The harness's late terminal for the abandoned turn ends nothing.
    expect(chassis.complete(harness.begun[0] as ChassisTurn, { outcome: { status: 'completed' } })).toBe(false);
  });

  it('stall watchdog: a turn with no native frame for stallTimeoutMs fails with timeout and the harness is interrupted', async () => {
    vi.useFakeTimers();
    const { harness, chassis, events } = setup({ stallTimeoutMs: 10_000 });
    await chassis.send('one');
    await vi.advanceTimersByTimeAsync(6000);
    chassis.activity(); // a frame: the clock starts again
    await vi.advanceTimersByTimeAsync(6000);
    expect(terminals(events)).toEqual([]);
    await vi.advanceTimersByTimeAsync(4000);
    const terminal = events.find((e) => e.type === 'turn.completed');
    expect(terminal).toMatchObject({ outcome: { status: 'failed', error: { code: 'timeout' } } });
    expect(harness.abandonedTurns).toEqual(['turn_1']);
    expect(harness.interrupted).toEqual(['turn_1']);
  });

  it('holds the next queued turn until the harness settled an abandoned turn', async () => {
    vi.useFakeTimers();
    const { harness, chassis, events } = setup({ stallTimeoutMs: 1000, interruptGraceMs: 10_000 });
    let settle: () => void = () => {};
    harness.turnAbandoned = (turn) => {
      harness.abandonedTurns.push(turn.turnId);
      return new Promise<void>((resolve) => {
        settle = resolve;
      });
    };
    await chassis.send('one');
    await chassis.send('two');
    await vi.advanceTimersByTimeAsync(1000);
    expect(terminals(events)).toEqual(['turn_1:failed']);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1']);
    // A fresh send while the harness is still settling waits too.
    expect(await chassis.send('three')).toMatchObject({ delivery: 'queued' });
    settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1', 'turn_2']);
    harness.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1', 'turn_2', 'turn_3']);
  });

  it('a send on an idle session waits for an abandoned turn to settle', async () => {
    vi.useFakeTimers();
    const { harness, chassis } = setup({ stallTimeoutMs: 1000, interruptGraceMs: 10_000 });
    let settle: () => void = () => {};
    harness.turnAbandoned = () =>
      new Promise<void>((resolve) => {
        settle = resolve;
      });
    await chassis.send('one');
    await vi.advanceTimersByTimeAsync(1000);
    expect(chassis.running).toBeUndefined();
    expect(await chassis.send('two')).toMatchObject({ delivery: 'queued' });
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1']);
    settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1', 'turn_2']);
  });

  it('stall watchdog waits while a hold (a pending approval) is out', async () => {
    vi.useFakeTimers();
    const { chassis, events } = setup({ stallTimeoutMs: 1000 });
    await chassis.send('one');
    const release = chassis.holdStallWatchdog();
    await vi.advanceTimersByTimeAsync(5000);
    expect(terminals(events)).toEqual([]);
    release();
    await vi.advanceTimersByTimeAsync(2500);
    expect(terminals(events)).toEqual(['turn_1:failed']);
  });

  it('steers into the running turn when the harness takes it, else queues, or fails when asked to', async () => {
    const { harness, chassis, events } = setup();
    await chassis.send('one');
    expect(await chassis.send('more', { mode: 'steer', clientMessageId: 's1' })).toEqual({
      turnId: 'turn_1',
      delivery: 'steered',
    });
    await tick();
    expect(events.find((e) => e.type === 'item.completed' && e.item.id === 'turn_1:steer:1')).toMatchObject({
      item: { text: 'more', clientMessageId: 's1' },
    });
    harness.steerAccepted = false;
    expect(await chassis.send('later', { mode: 'steer' })).toEqual({ turnId: 'turn_2', delivery: 'queued' });
    await expect(chassis.send('now', { mode: 'steer', steerFallback: 'fail' })).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
  });

  it('emulated structured output: the instruction goes to the harness, the reply is validated against the original schema', async () => {
    const { harness, chassis, events } = setup();
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    await chassis.send('verdict?', { outputSchema: schema });
    expect(harness.begun[0]?.prompt.text).toContain('JSON Schema');
    expect(harness.begun[0]?.input.text).toBe('verdict?');
    harness.finish('{"ok": true}');
    await chassis.send('again', { outputSchema: schema });
    await tick();
    harness.finish('not json');
    await tick();
    const outcomes = events.filter((e) => e.type === 'turn.completed');
    expect(outcomes[0]).toMatchObject({ outcome: { status: 'completed' }, structuredOutput: { ok: true } });
    expect(outcomes[1]).toMatchObject({ outcome: { status: 'failed', error: { code: 'structured_output_invalid' } } });
  });

  it('a failing begin ends that turn failed and the next queued turn still runs', async () => {
    const { harness, chassis, events } = setup();
    let fail = true;
    harness.beginTurn = (turn) => {
      harness.begun.push(turn);
      if (fail) {
        fail = false;
        throw new Error('stdin closed');
      }
    };
    await chassis.send('one');
    await chassis.send('two');
    await tick();
    expect(terminals(events)).toEqual(['turn_1:failed']);
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_1', 'turn_2']);
  });

  it('end() gives the running and queued turns their terminals, then every call gets the one closed-session error', async () => {
    const { chassis, events } = setup();
    await chassis.send('one');
    await chassis.send('two');
    chassis.end('process_exited', { code: 'process_exited', message: 'gone' });
    await tick();
    expect(terminals(events)).toEqual(['turn_1:failed', 'turn_2:failed']);
    expect(events.at(-1)).toMatchObject({ type: 'session.closed', reason: 'process_exited' });
    await expect(chassis.send('three')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'session_closed' },
    });
    expect(streamViolations(events)).toEqual([]);
  });

  it('beginHarnessTurn: a turn the harness started itself gets turn.started, a notification user_message and one terminal; sends queue behind it', async () => {
    const { harness, chassis, events } = setup();
    const input = { text: 'Background task "Inspect folder" completed.' };
    const turn = chassis.beginHarnessTurn(input);
    expect(turn?.turnId).toBe('turn_1');
    expect(chassis.beginHarnessTurn({ text: 'another' })).toBeUndefined();
    // Nothing was delivered to the harness: it started this turn.
    expect(harness.begun).toEqual([]);
    expect(await chassis.send('mine', { clientMessageId: 'c2' })).toEqual({ turnId: 'turn_2', delivery: 'queued' });
    harness.finish('Noted.');
    await tick();
    expect(harness.begun.map((t) => t.turnId)).toEqual(['turn_2']);
    harness.finish('done');
    await tick();
    expect(events.find((e) => e.type === 'turn.started')).toMatchObject({ turnId: 'turn_1', input });
    expect(events.find((e) => e.type === 'item.completed' && e.turnId === 'turn_1')).toMatchObject({
      item: { kind: 'user_message', id: 'turn_1:input', text: input.text, origin: 'notification' },
    });
    expect(terminals(events)).toEqual(['turn_1:completed', 'turn_2:completed']);
    expect(streamViolations(events, { settled: true })).toEqual([]);
  });

  it('beginHarnessTurn: interrupt and the stall watchdog end it like a sent turn', async () => {
    vi.useFakeTimers();
    const { harness, chassis, events } = setup({ stallTimeoutMs: 1000 });
    const first = chassis.beginHarnessTurn({ text: 'a notice' });
    await chassis.interrupt();
    expect(harness.interrupted).toEqual([first?.turnId]);
    harness.interruptEndsTurn = false;
    chassis.beginHarnessTurn({ text: 'another notice' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(terminals(events)).toEqual(['turn_1:cancelled', 'turn_2:failed']);
    chassis.end('requested');
    expect(chassis.beginHarnessTurn({ text: 'after close' })).toBeUndefined();
  });

  it('translate() keeps a throwing translation inside the session: passthrough + one warning, and the stream goes on', async () => {
    const { chassis, events } = setup();
    const native = { source: 'fake', method: 'item/started', frame: { method: 'item/started' } };
    const out = chassis.translate(native, 1, () => {
      throw new TypeError("Cannot read properties of undefined (reading 'type')");
    });
    expect(out).toEqual([]);
    chassis.translate(native, 2, () => {
      throw new TypeError('again');
    });
    await chassis.send('still works');
    await tick();
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(['passthrough', 'notice', 'passthrough']);
    expect(events[0]).toMatchObject({ reason: 'untranslatable', native });
    for (const event of events) expect(ReinsEventSchema.safeParse(event).success).toBe(true);
  });

  // held-emissions.ts: a frame's events are committed only when its translation returns.
  const note = (message: string) => ({ type: 'notice' as const, kind: 'info' as const, message });

  it('translateInto: a frame whose translation throws part-way emits none of its events; the next frame commits', async () => {
    const { chassis, events } = setup();
    const committed: Array<[string, string | undefined, boolean, number]> = [];
    const commit: CommitEmission = (payload, lane, background, meta) => {
      committed.push([payload.type === 'notice' ? payload.message : payload.type, lane, background, meta.at]);
      chassis.stream.emit(payload, meta);
    };
    const native = { source: 'fake', method: 'item/started', frame: { method: 'item/started' } };
    const broken = (_frame: string, sink: FrameSink) => {
      sink.emit(note('before the throw'));
      sink.emit(note('also before'), 'lane_1', true);
      throw new TypeError("Cannot read properties of undefined (reading 'type')");
    };
    expect(chassis.translateInto('a', { native, at: 1 }, broken, commit)).toBe(false);
    const fine = (frame: string, sink: FrameSink) => {
      sink.emit(note(`${frame} one`));
      sink.emit(note(`${frame} two`), 'lane_1', true);
    };
    expect(chassis.translateInto('b', { native, at: 2 }, fine, commit)).toBe(true);
    expect(committed).toEqual([
      ['b one', undefined, false, 2],
      ['b two', 'lane_1', true, 2],
    ]);
    await chassis.send('still works');
    await tick();
    const shown = events.map((e) => (e.type === 'notice' && e.kind === 'info' ? e.message : e.type));
    expect(shown.slice(0, 4)).toEqual(['passthrough', 'notice', 'b one', 'b two']);
    expect(shown).not.toContain('before the throw');
    expect(shown).not.toContain('also before');
    expect(events[0]).toMatchObject({ reason: 'untranslatable', native });
    for (const event of events) expect(ReinsEventSchema.safeParse(event).success).toBe(true);
  });

  it('translateInto: a frame translated while another commits keeps its own events, and both commit in full', () => {
    const { chassis } = setup();
    const native = { source: 'fake', frame: {} };
    const seen: string[] = [];
    const translate = (frame: string, sink: FrameSink) => {
      sink.emit(note(`${frame}1`));
      sink.emit(note(`${frame}2`));
    };
    const commit: CommitEmission = (payload) => {
      const message = payload.type === 'notice' ? payload.message : payload.type;
      seen.push(message);
      // A listener's reaction to the outer frame's first event translates another frame right away.
      if (message === 'outer1') chassis.translateInto('inner', { native, at: 2 }, translate, commit);
    };
    chassis.translateInto('outer', { native, at: 1 }, translate, commit);
    chassis.translateInto('next', { native, at: 3 }, translate, commit);
    expect(seen).toEqual(['outer1', 'inner1', 'inner2', 'outer2', 'next1', 'next2']);
  });
});
