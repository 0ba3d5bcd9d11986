import { type ReinsEvent, type Session, SessionEventStream } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { SessionRecorder } from './recorder.js';

/** An in-memory Session: the test drives its stream by hand; send starts a turn and answers nothing. */
function memorySession() {
  const stream = new SessionEventStream({ harness: 'codex', sessionId: 's' });
  const session: Session = {
    id: 's',
    harness: 'codex',
    nativeSessionId: undefined,
    events: stream.events,
    async send(input) {
      const turnId = stream.startTurn(typeof input === 'string' ? { text: input } : input);
      if (!turnId) throw new Error('a turn is running');
      return { turnId, delivery: 'started' };
    },
    async interrupt() {
      stream.completeTurn({ outcome: { status: 'cancelled' } });
    },
    setModel: async () => ({ applied: 'live' }),
    setEffort: async () => ({ applied: 'live' }),
    respondToPermission: async () => {},
    async close() {
      stream.close('requested');
    },
  };
  return { session, stream };
}

const text = (id: string, value: string) =>
  ({ type: 'item.completed', item: { kind: 'agent_message', id, status: 'completed', text: value } }) as const;

/** Lets the recorder's reading loop take what the stream queued. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionRecorder', () => {
  it('waits for events seen before and after the call, from an index on, and ofType filters by type', async () => {
    const { session, stream } = memorySession();
    const recorder = new SessionRecorder(session, 1_000);
    stream.emit({ type: 'session.status', status: 'idle' });
    await settle();
    const first = await recorder.waitFor((event) => event.type === 'session.status', 'the first status');
    expect(first.seq).toBe(1);
    const later = recorder.waitFor((event) => event.type === 'session.status', 'a later status', 1_000, 1);
    stream.emit({ type: 'session.status', status: 'running' });
    expect(await later).toMatchObject({ seq: 2, status: 'running' });
    expect(recorder.ofType('session.status').map((event) => event.status)).toEqual(['idle', 'running']);
    // An index not reached yet: the next status (index 2) is too early, the one after it matches.
    const beyond = recorder.waitFor((event) => event.type === 'session.status', 'a status from index 3', 1_000, 3);
    stream.emit({ type: 'session.status', status: 'idle' });
    stream.emit({ type: 'session.status', status: 'requires_action' });
    expect(await beyond).toMatchObject({ seq: 4, status: 'requires_action' });
    await recorder.close();
  });

  it('collect returns the events from an index through the match', async () => {
    const { session, stream } = memorySession();
    const recorder = new SessionRecorder(session, 1_000);
    stream.emit({ type: 'session.status', status: 'idle' });
    const sent = await session.send('hi');
    stream.emit(text('m', 'hello'));
    stream.completeTurn({ outcome: { status: 'completed' } });
    stream.emit({ type: 'session.status', status: 'idle' });
    const through = await recorder.collect((event) => event.type === 'turn.completed', 'the terminal', 1_000, 1);
    expect(through.map((event) => event.type)).toEqual(['turn.started', 'item.completed', 'turn.completed']);
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    expect(recorder.turnEvents(sent.turnId)).toHaveLength(3);
    await recorder.close();
  });

  it('fails a pending wait as soon as the stream ends, naming what it waited for', async () => {
    const { session, stream } = memorySession();
    const recorder = new SessionRecorder(session, 60_000);
    const pending = recorder.waitFor((event) => event.type === 'turn.completed', 'a terminal');
    stream.close('process_exited');
    await expect(pending).rejects.toThrow(/Waiting for a terminal: The session ended. Last: 1:session.closed/);
    await expect(recorder.waitFor((event) => event.type === 'notice', 'a notice')).rejects.toThrow(
      /ended before a notice/,
    );
  });

  it('times out a wait with the last events in the message', async () => {
    const { session, stream } = memorySession();
    const recorder = new SessionRecorder(session);
    stream.emit({ type: 'session.status', status: 'idle' });
    await expect(recorder.waitFor((event) => event.type === 'notice', 'a notice', 20)).rejects.toThrow(
      /Timed out after 20 ms waiting for a notice. Last events: 1:session.status/,
    );
    await recorder.close();
  });

  it('close() checks the invariants, and every turn must have ended', async () => {
    const { session, stream } = memorySession();
    const recorder = new SessionRecorder(session, 1_000);
    await session.send('hi');
    stream.emit(text('m', 'same'));
    stream.emit(text('m2', 'same'));
    await expect(recorder.close()).rejects.toThrow(/assistant text repeated in turn turn_1/);
    expect(recorder.events.at(-1)?.type).toBe('session.closed');
  });

  it('close() fails when a stream ended without closing a turn', async () => {
    // A hand-made stream that ends with a turn open and no session.closed: only `settled` catches it.
    const events: ReinsEvent[] = [
      { type: 'turn.started', seq: 1, harness: 'codex', sessionId: 's', turnId: 't', at: 0, input: { text: 'a' } },
    ];
    const session = {
      ...memorySession().session,
      events: (async function* () {
        yield* events;
      })(),
    };
    const recorder = new SessionRecorder(session, 1_000);
    await expect(recorder.close()).rejects.toThrow(/turn t never completed/);
  });

  it('closeAll closes every session even when one breaks the invariants, then throws that failure', async () => {
    const broken = memorySession();
    const fine = memorySession();
    const recorders = [new SessionRecorder(broken.session, 1_000), new SessionRecorder(fine.session, 1_000)];
    await broken.session.send('hi');
    broken.stream.emit(text('m', 'same'));
    broken.stream.emit(text('m2', 'same'));
    await expect(SessionRecorder.closeAll(recorders)).rejects.toThrow(/assistant text repeated/);
    expect(fine.stream.isClosed).toBe(true);
    expect(recorders[1]?.events.at(-1)?.type).toBe('session.closed');
  });
});
