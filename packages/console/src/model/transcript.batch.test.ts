// Applying a replay batch in one pass (Transcript.applyAll, SessionModel.receiveAll) is the same as
// applying its events one by one, property-style: the events of a recorded session (a daemon
// running Reins' Codex adapter on recorded Codex 0.169.0 frames: fixtures/codex-turns.*.events.jsonl)
// and a built one with subagent lanes, tool output, permissions, notices and deltas before their
// item, cut into random runs, some runs sent again (a reconnect's overlap), compared after every run.
import { readFileSync } from 'node:fs';
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { SessionModel } from './session-model.js';
import { Transcript } from './transcript.js';

const recorded: ReinsEvent[] = readFileSync(
  new URL('./fixtures/codex-turns.0.169.0.events.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as ReinsEvent);

function built(): ReinsEvent[] {
  const next = eventStream();
  const t = { turnId: 't1' };
  const lane = { turnId: 't1', parentItemId: 'task1' };
  const running = (id: string) => ({ kind: 'agent_message', id, status: 'running', text: '' }) as const;
  const task = {
    kind: 'tool_call',
    id: 'task1',
    status: 'running',
    tool: { kind: 'subagent', name: 'Task' },
    input: { prompt: 'look' },
  } as const;
  const command = {
    kind: 'tool_call',
    id: 'cmd1',
    status: 'running',
    tool: { kind: 'command', name: 'shell' },
    input: { command: 'ls' },
  } as const;
  return [
    next({ type: 'session.started', cwd: '/work', model: 'm1' }),
    next({ type: 'turn.started', input: { text: 'Go' } }, t),
    next(
      {
        type: 'item.completed',
        item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Go', clientMessageId: 'c1' },
      },
      t,
    ),
    // Deltas before their item.started: a placeholder row, then the item.
    next({ type: 'item.delta', itemId: 'r1', kind: 'reasoning', text: 'Think' }, t),
    next({ type: 'item.delta', itemId: 'r1', kind: 'reasoning', text: 'ing' }, t),
    next({ type: 'item.started', item: { kind: 'reasoning', id: 'r1', status: 'running', text: '' } }, t),
    next({ type: 'item.delta', itemId: 'r1', kind: 'reasoning', text: '...' }, t),
    next({ type: 'item.started', item: task }, t),
    next({ type: 'item.started', item: running('sub-a1') }, lane),
    next({ type: 'item.delta', itemId: 'sub-a1', kind: 'text', text: 'sub ' }, lane),
    next({ type: 'item.delta', itemId: 'sub-a1', kind: 'text', text: 'agent' }, lane),
    next({ type: 'item.started', item: command }, t),
    next({ type: 'item.delta', itemId: 'cmd1', kind: 'tool_input', text: '{"cmd"' }, t),
    next({ type: 'item.delta', itemId: 'cmd1', kind: 'tool_output', text: 'a\n' }, t),
    next({ type: 'item.delta', itemId: 'cmd1', kind: 'tool_output', text: 'b\n' }, t),
    // Interleaved deltas of two items, and one of an unknown item that is not text (ignored).
    next({ type: 'item.delta', itemId: 'sub-a1', kind: 'text', text: '!' }, lane),
    next({ type: 'item.delta', itemId: 'cmd1', kind: 'tool_output', text: 'c\n' }, t),
    next({ type: 'item.delta', itemId: 'ghost', kind: 'tool_output', text: 'x' }, t),
    next(
      { type: 'item.completed', item: { ...command, status: 'completed', exitCode: 0, output: { text: 'a\nb\nc\n' } } },
      t,
    ),
    // A delta after the truth: dropped.
    next({ type: 'item.delta', itemId: 'cmd1', kind: 'tool_output', text: 'late' }, t),
    next({ type: 'permission.requested', requestId: 'p1', tool: { kind: 'command', name: 'shell' }, options: [] }, t),
    next(
      { type: 'permission.resolved', requestId: 'p1', decision: { behavior: 'allow', scope: 'once' }, by: 'client' },
      t,
    ),
    next({ type: 'notice', kind: 'warning', message: 'The turn diff changed.' }, t),
    next({ type: 'notice', kind: 'warning', message: 'The turn diff changed.' }, t),
    next({ type: 'usage.updated', context: { used: 10, window: 100 } }, t),
    next({ type: 'item.started', item: running('a1') }, t),
    next({ type: 'item.delta', itemId: 'a1', kind: 'text', text: 'Hel' }, t),
    next({ type: 'item.delta', itemId: 'a1', kind: 'text', text: 'lo' }, t),
    next({ type: 'turn.completed', outcome: { status: 'completed' } }, t),
    // Background work after its turn: the task still runs, its lane grows.
    next(
      { type: 'item.delta', itemId: 'sub-a1', kind: 'text', text: ' more' },
      { turnId: null, parentItemId: 'task1' },
    ),
    next({ type: 'passthrough', frame: { odd: true }, reason: 'unknown' }),
    next({ type: 'session.updated', title: 'A title', nativeSessionId: 'n1' }),
    next({ type: 'error', code: 'provider_error', message: 'boom', fatal: false }),
    next({ type: 'session.closed', reason: 'requested' }),
  ];
}

/** A small seeded generator (mulberry32): the same cuts on every run, many different ones per seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The events cut into runs of 1..maxRun, now and then a run that starts again some events back. */
function runs(events: readonly ReinsEvent[], next: () => number, maxRun: number): ReinsEvent[][] {
  const out: ReinsEvent[][] = [];
  let index = 0;
  while (index < events.length) {
    const start = next() < 0.2 ? Math.max(0, index - Math.floor(next() * 6)) : index;
    const end = Math.min(events.length, index + 1 + Math.floor(next() * maxRun));
    out.push(events.slice(start, end));
    index = end;
  }
  return out;
}

describe.each([
  ['recorded Codex session', recorded],
  ['built session with lanes, permissions and notices', built()],
])('applying batches = applying events one by one (%s)', (_name, events) => {
  it('gives the same view after every run, over many random cuts', () => {
    expect(events.length).toBeGreaterThan(30);
    for (let seed = 1; seed <= 150; seed++) {
      const next = random(seed);
      const batched = new Transcript();
      const single = new Transcript();
      for (const run of runs(events, next, seed % 3 === 0 ? 4 : 40)) {
        const applied = batched.applyAll(run);
        const one = run.filter((event) => single.apply(event));
        expect(applied, `seed ${seed}`).toEqual(one);
        expect(batched.view(), `seed ${seed}`).toEqual(single.view());
      }
      expect(batched.events).toEqual(single.events);
      expect(batched.lastSeq).toBe(events.at(-1)?.seq);
    }
  });

  it('the whole log as one batch gives the view of the events one by one', () => {
    const batched = new Transcript();
    const single = new Transcript();
    expect(batched.applyAll(events)).toEqual(events);
    for (const event of events) single.apply(event);
    expect(batched.view()).toEqual(single.view());
    // Applied again (a reload's full replay): nothing changes.
    expect(batched.applyAll(events)).toEqual([]);
    expect(batched.view()).toEqual(single.view());
  });
});

describe('SessionModel.receiveAll', () => {
  it('tells views once per batch, and holds them while a replay is arriving', () => {
    const frames: Array<() => void> = [];
    const catchUp: Array<() => void> = [];
    const model = new SessionModel(
      's1',
      (callback) => frames.push(callback),
      (callback) => catchUp.push(callback),
    );
    model.beginSend('Go', 'queue', 'c1');
    for (const callback of frames.splice(0)) callback();
    expect(model.snapshot().pending).toHaveLength(1);
    let told = 0;
    model.subscribe(() => told++);
    const events = built();
    model.catchingUp(events.length);
    model.receiveAll(events.slice(0, 10));
    // Still replaying: only the slow catch-up timer is asked for, not an animation frame.
    expect(frames).toHaveLength(0);
    expect(catchUp).toHaveLength(1);
    model.receiveAll(events.slice(10));
    // Caught up: the next frame shows it.
    expect(frames).toHaveLength(1);
    for (const callback of frames.splice(0)) callback();
    expect(told).toBe(1);
    expect(model.snapshot().lastSeq).toBe(events.length);
    expect(model.isCatchingUp).toBe(false);
    // The bubble was matched by the user message in the batch.
    expect(model.snapshot().pending).toEqual([]);
    // A replay that never reaches its end (the session stopped sending) holds back no action of the user's.
    model.catchingUp(events.length + 100);
    model.beginSend('Later', 'queue', 'c2');
    expect(frames).toHaveLength(1);
  });
});
