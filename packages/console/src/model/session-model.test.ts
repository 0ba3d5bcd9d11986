import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { SessionModel } from './session-model.js';

/** A frame scheduler flushed by hand. */
function manualFrames() {
  const queue: Array<() => void> = [];
  return {
    schedule: (callback: () => void) => {
      queue.push(callback);
    },
    flush() {
      for (const callback of queue.splice(0)) callback();
    },
    get pending() {
      return queue.length;
    },
  };
}

const userMessage = (text: string, clientMessageId?: string) =>
  ({
    type: 'item.completed',
    item: {
      kind: 'user_message',
      id: `u-${text}`,
      status: 'completed',
      text,
      ...(clientMessageId ? { clientMessageId } : {}),
    },
  }) as const;

describe('SessionModel: optimistic bubbles', () => {
  it('shows the bubble at once and swaps it for the user_message item with the same clientMessageId', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    const next = eventStream();
    model.beginSend('Run the tests', 'queue', 'c1');
    frames.flush();
    expect(model.snapshot().pending).toMatchObject([
      { clientMessageId: 'c1', text: 'Run the tests', state: 'sending' },
    ]);
    expect(model.snapshot().rows).toEqual([]);

    model.sendSucceeded('c1', { turnId: 't1', delivery: 'started' });
    frames.flush();
    expect(model.snapshot().pending).toMatchObject([{ state: 'sent', delivery: 'started' }]);

    model.receive(next(userMessage('Run the tests', 'c1'), { turnId: 't1' }));
    frames.flush();
    const snapshot = model.snapshot();
    expect(snapshot.pending).toEqual([]);
    expect(snapshot.rows.filter((row) => row.kind === 'user')).toHaveLength(1);
    expect(snapshot.rows[0]).toMatchObject({ delivery: 'started' });
  });

  it('does not bring a bubble back when the item came before the send answer', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    model.beginSend('Steer this', 'steer', 'c2');
    model.receive(eventStream()(userMessage('Steer this', 'c2'), { turnId: 't1' }));
    model.sendSucceeded('c2', { turnId: 't1', delivery: 'steered' });
    frames.flush();
    expect(model.snapshot().pending).toEqual([]);
    expect(model.snapshot().rows).toMatchObject([{ kind: 'user', delivery: 'steered' }]);
  });

  it('keeps a refused message with the daemon error, until dismissed', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    model.beginSend('Hello', 'queue', 'c3');
    model.sendFailed('c3', { code: 'resume_failed', message: 'cannot resume' });
    frames.flush();
    expect(model.snapshot().pending).toMatchObject([{ state: 'failed', error: { code: 'resume_failed' } }]);
    model.dismiss('c3');
    frames.flush();
    expect(model.snapshot().pending).toEqual([]);
  });

  it('a message from another client (no bubble here) shows once, as its item', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    model.receive(eventStream()(userMessage('from the CLI', 'other-client-id'), { turnId: 't1' }));
    frames.flush();
    expect(model.snapshot().pending).toEqual([]);
    expect(model.snapshot().rows).toHaveLength(1);
  });
});

describe('SessionModel: one notification per frame', () => {
  it('folds a burst of deltas into one snapshot change', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    const next = eventStream();
    let notified = 0;
    model.subscribe(() => notified++);
    const before = model.snapshot();
    model.receive(
      next({ type: 'item.started', item: { kind: 'agent_message', id: 'a', status: 'running', text: '' } }),
    );
    for (let index = 0; index < 500; index++)
      model.receive(next({ type: 'item.delta', itemId: 'a', kind: 'text', text: 'x' }));
    expect(frames.pending).toBe(1);
    expect(model.snapshot()).toBe(before); // views keep what they have until the frame
    frames.flush();
    expect(notified).toBe(1);
    const after = model.snapshot();
    expect(after).not.toBe(before);
    expect(after.rows[0]).toMatchObject({ item: { text: 'x'.repeat(500) } });
    expect(model.snapshot()).toBe(after);
    expect(model.lastSeq).toBe(501);
  });

  it('opens a session of 20 000 events into one snapshot', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    model.subscribe(() => {});
    const next = eventStream();
    for (let turn = 0; turn < 2_000; turn++) {
      const t = { turnId: `t${turn}` };
      model.receive(next({ type: 'turn.started', input: { text: `q${turn}` } }, t));
      model.receive(next(userMessage(`q${turn}`), t));
      model.receive(
        next({ type: 'item.started', item: { kind: 'agent_message', id: `a${turn}`, status: 'running', text: '' } }, t),
      );
      for (let delta = 0; delta < 5; delta++)
        model.receive(next({ type: 'item.delta', itemId: `a${turn}`, kind: 'text', text: 'w ' }, t));
      model.receive(
        next(
          {
            type: 'item.completed',
            item: { kind: 'agent_message', id: `a${turn}`, status: 'completed', text: 'w w w w w ' },
          },
          t,
        ),
      );
      model.receive(next({ type: 'turn.completed', outcome: { status: 'completed' } }, t));
    }
    expect(model.lastSeq).toBe(20_000);
    expect(frames.pending).toBe(1);
    frames.flush();
    const snapshot = model.snapshot();
    expect(snapshot.eventCount).toBe(20_000);
    expect(snapshot.rows).toHaveLength(6_000);
    expect(snapshot.runningTurnId).toBeUndefined();
  });
});

describe('SessionModel: a session followed off screen', () => {
  it('schedules no frame while no view subscribes, and its snapshot is fresh when one reads it', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    const next = eventStream();
    const empty = model.snapshot();
    model.receive(
      next({ type: 'item.started', item: { kind: 'agent_message', id: 'a', status: 'running', text: '' } }),
    );
    for (let index = 0; index < 300; index++)
      model.receive(next({ type: 'item.delta', itemId: 'a', kind: 'text', text: 'y' }));
    model.note('a line of our own');
    expect(frames.pending).toBe(0);
    // The view that comes later (useSyncExternalStore subscribes, then reads) sees every event.
    let notified = 0;
    model.subscribe(() => notified++);
    const shown = model.snapshot();
    expect(shown).not.toBe(empty);
    expect(shown.rows[0]).toMatchObject({ item: { text: 'y'.repeat(300) } });
    expect(shown.rows).toHaveLength(2);
    expect(model.snapshot()).toBe(shown);
    // From now on changes come once a frame again.
    model.receive(next({ type: 'item.delta', itemId: 'a', kind: 'text', text: 'z' }));
    expect(frames.pending).toBe(1);
    expect(model.snapshot()).toBe(shown);
    frames.flush();
    expect(notified).toBe(1);
    expect(model.snapshot().rows[0]).toMatchObject({ item: { text: `${'y'.repeat(300)}z` } });
  });

  it('stops scheduling once its last view unsubscribes', () => {
    const frames = manualFrames();
    const model = new SessionModel('s1', frames.schedule);
    const next = eventStream();
    const unsubscribe = model.subscribe(() => {});
    model.receive(
      next({ type: 'item.started', item: { kind: 'agent_message', id: 'a', status: 'running', text: '' } }),
    );
    expect(frames.pending).toBe(1);
    frames.flush();
    unsubscribe();
    model.receive(next({ type: 'item.delta', itemId: 'a', kind: 'text', text: 'late' }));
    expect(frames.pending).toBe(0);
    expect(model.snapshot().rows[0]).toMatchObject({ item: { text: 'late' } });
  });
});
