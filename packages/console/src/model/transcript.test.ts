import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { type Row, type ToolRow, Transcript } from './transcript.js';

function kinds(rows: Row[]): string[] {
  return rows.map((row) => row.kind);
}

describe('Transcript', () => {
  it('folds a turn into rows: user bubble, streamed text that the completed item settles, turn end', () => {
    const next = eventStream();
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    transcript.apply(next({ type: 'session.started', cwd: '/work', harnessVersion: '0.171.0' }));
    transcript.apply(next({ type: 'turn.started', input: { text: 'Hi' } }, t));
    transcript.apply(
      next(
        {
          type: 'item.completed',
          item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Hi', clientMessageId: 'c1' },
        },
        t,
      ),
    );
    transcript.apply(
      next({ type: 'item.started', item: { kind: 'agent_message', id: 'a1', status: 'running', text: '' } }, t),
    );
    transcript.apply(next({ type: 'item.delta', itemId: 'a1', kind: 'text', text: 'Hel' }, t));
    transcript.apply(next({ type: 'item.delta', itemId: 'a1', kind: 'text', text: 'lo' }, t));
    const streaming = transcript.view();
    expect(streaming.runningTurnId).toBe('t1');
    expect(streaming.rows.find((row) => row.key === 'a1')).toMatchObject({
      item: { text: 'Hello', status: 'running' },
    });

    transcript.apply(
      next(
        { type: 'item.completed', item: { kind: 'agent_message', id: 'a1', status: 'completed', text: 'Hello!' } },
        t,
      ),
    );
    transcript.apply(next({ type: 'turn.completed', outcome: { status: 'completed' } }, t));
    const done = transcript.view();
    expect(kinds(done.rows)).toEqual(['session', 'user', 'agent', 'turn-end']);
    expect(done.rows[2]).toMatchObject({ item: { text: 'Hello!', status: 'completed' } });
    expect(done.runningTurnId).toBeUndefined();
    expect(done.facts).toMatchObject({ cwd: '/work', harnessVersion: '0.171.0' });
    expect(transcript.hasClientMessage('c1')).toBe(true);
  });

  it('applies each seq once: a replay after a reconnect or a reload adds nothing', () => {
    const next = eventStream();
    const events = [
      next({ type: 'turn.started', input: { text: 'Hi' } }, { turnId: 't1' }),
      next(
        { type: 'item.completed', item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Hi' } },
        { turnId: 't1' },
      ),
      next({ type: 'turn.completed', outcome: { status: 'completed' } }, { turnId: 't1' }),
    ];
    const transcript = new Transcript();
    for (const event of events) expect(transcript.apply(event)).toBe(true);
    for (const event of events) expect(transcript.apply(event)).toBe(false);
    expect(kinds(transcript.view().rows)).toEqual(['user', 'turn-end']);
    expect(transcript.view().eventCount).toBe(3);
  });

  it('shows a command with the output as it streams, then the exit code and output of the completed item', () => {
    const next = eventStream();
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    const tool = { kind: 'command' as const, name: 'exec_command', title: 'npm test' };
    transcript.apply(
      next({ type: 'item.started', item: { kind: 'tool_call', id: 'c1', status: 'running', tool, input: {} } }, t),
    );
    transcript.apply(next({ type: 'item.delta', itemId: 'c1', kind: 'tool_output', text: '3 passed\n' }, t));
    expect(transcript.view().rows[0]).toMatchObject({ kind: 'tool', liveOutput: '3 passed\n' });
    transcript.apply(
      next(
        {
          type: 'item.completed',
          item: {
            kind: 'tool_call',
            id: 'c1',
            status: 'completed',
            tool,
            input: {},
            output: { text: '3 passed\n' },
            exitCode: 0,
          },
        },
        t,
      ),
    );
    expect(transcript.view().rows[0]).toMatchObject({ item: { status: 'completed', exitCode: 0 } });
  });

  it('nests events with a parentItemId in the lane of the tool call that spawned them, to any depth', () => {
    const next = eventStream('s1', 'claude-code');
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    const task = { kind: 'subagent' as const, name: 'Task' };
    transcript.apply(
      next(
        { type: 'item.started', item: { kind: 'tool_call', id: 'task1', status: 'running', tool: task, input: {} } },
        t,
      ),
    );
    transcript.apply(
      next(
        { type: 'item.started', item: { kind: 'tool_call', id: 'task2', status: 'running', tool: task, input: {} } },
        { turnId: 't1', parentItemId: 'task1' },
      ),
    );
    const before = transcript.view().rows[0] as ToolRow;
    transcript.apply(
      next(
        { type: 'item.completed', item: { kind: 'agent_message', id: 'inner', status: 'completed', text: 'deep' } },
        { turnId: 't1', parentItemId: 'task2' },
      ),
    );
    const view = transcript.view();
    expect(view.rows).toHaveLength(1);
    const outer = view.rows[0] as ToolRow;
    expect(outer).not.toBe(before); // an ancestor of a changed row is a new object
    expect(outer.lane.map((row) => row.key)).toEqual(['task2']);
    expect((outer.lane[0] as ToolRow).lane[0]).toMatchObject({ kind: 'agent', item: { text: 'deep' } });
  });

  it('keeps rows that did not change as the same objects', () => {
    const next = eventStream();
    const transcript = new Transcript();
    transcript.apply(
      next({ type: 'item.completed', item: { kind: 'agent_message', id: 'a0', status: 'completed', text: 'old' } }),
    );
    transcript.apply(
      next({ type: 'item.started', item: { kind: 'agent_message', id: 'a1', status: 'running', text: '' } }),
    );
    const first = transcript.view().rows;
    transcript.apply(next({ type: 'item.delta', itemId: 'a1', kind: 'text', text: 'x' }));
    const second = transcript.view().rows;
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(transcript.view().rows).toBe(second); // nothing new: the same array
  });

  it('marks a subagent still running after its turn ended as background work, until it completes', () => {
    const next = eventStream('s1', 'claude-code');
    const transcript = new Transcript();
    const task = { kind: 'subagent' as const, name: 'Task' };
    transcript.apply(
      next(
        { type: 'item.started', item: { kind: 'tool_call', id: 'bg', status: 'running', tool: task, input: {} } },
        { turnId: 't1' },
      ),
    );
    transcript.apply(next({ type: 'turn.completed', outcome: { status: 'completed' } }, { turnId: 't1' }));
    expect(transcript.view().rows[0]).toMatchObject({ kind: 'tool', background: true });
    // What it does after the turn has turnId null and goes into its lane.
    transcript.apply(
      next(
        { type: 'item.completed', item: { kind: 'agent_message', id: 'late', status: 'completed', text: 'found it' } },
        { turnId: null, parentItemId: 'bg' },
      ),
    );
    expect((transcript.view().rows[0] as ToolRow).lane).toHaveLength(1);
    transcript.apply(
      next(
        { type: 'item.completed', item: { kind: 'tool_call', id: 'bg', status: 'completed', tool: task, input: {} } },
        { turnId: 't1' },
      ),
    );
    expect(transcript.view().rows[0]).toMatchObject({ background: false, item: { status: 'completed' } });
  });

  it('tracks permission requests until they are resolved', () => {
    const next = eventStream('s1', 'claude-code');
    const transcript = new Transcript();
    transcript.apply(
      next(
        {
          type: 'permission.requested',
          requestId: 'p1',
          tool: { kind: 'file_change', name: 'Write' },
          input: { file_path: '/w/a.txt' },
          options: [],
        },
        { turnId: 't1' },
      ),
    );
    expect(transcript.view().pendingPermissions.map((row) => row.requestId)).toEqual(['p1']);
    transcript.apply(
      next(
        { type: 'permission.resolved', requestId: 'p1', decision: { behavior: 'deny' }, by: 'client' },
        { turnId: 't1' },
      ),
    );
    const view = transcript.view();
    expect(view.pendingPermissions).toEqual([]);
    expect(view.rows[0]).toMatchObject({
      kind: 'permission',
      resolved: { decision: { behavior: 'deny' }, by: 'client' },
    });
  });

  it('keeps usage parts absent until reported, and merges each part as it comes', () => {
    const next = eventStream();
    const transcript = new Transcript();
    expect(transcript.view().usage).toEqual({});
    transcript.apply(next({ type: 'usage.updated', turn: { input: 10, output: 2 } }));
    transcript.apply(next({ type: 'usage.updated', context: { used: 500, window: 1000 } }));
    expect(transcript.view().usage).toEqual({ turn: { input: 10, output: 2 }, context: { used: 500, window: 1000 } });
    expect(transcript.view().usage.costUsd).toBeUndefined();
  });

  it('shows a failed turn with its error, notices (repeats in a turn folded), compaction rows and errors', () => {
    const next = eventStream();
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    transcript.apply(next({ type: 'notice', kind: 'retry', message: 'Retrying (1/3)' }, t));
    transcript.apply(next({ type: 'notice', kind: 'info', message: 'The turn diff changed.' }, t));
    transcript.apply(next({ type: 'notice', kind: 'retry', message: 'Retrying (1/3)' }, t));
    transcript.apply(next({ type: 'notice', kind: 'info', message: 'The turn diff changed.' }, t));
    transcript.apply(
      next(
        {
          type: 'item.completed',
          item: { kind: 'compaction', id: 'k1', status: 'completed', preTokens: 9000, postTokens: 1200 },
        },
        t,
      ),
    );
    transcript.apply(next({ type: 'error', code: 'provider_error', message: 'overloaded', fatal: false }, t));
    transcript.apply(
      next(
        {
          type: 'turn.completed',
          outcome: { status: 'failed', error: { code: 'provider_error', message: 'overloaded' } },
        },
        t,
      ),
    );
    const rows = transcript.view().rows;
    expect(kinds(rows)).toEqual(['notice', 'notice', 'compaction', 'error', 'turn-end']);
    expect(rows[0]).toMatchObject({ notice: 'retry', count: 2 });
    expect(rows[1]).toMatchObject({ notice: 'info', count: 2 });
    expect(rows[4]).toMatchObject({ outcome: { status: 'failed', error: { code: 'provider_error' } } });
  });

  it('says how a message this console sent was delivered, whether the answer or the item came first', () => {
    const next = eventStream();
    const early = new Transcript();
    early.noteDelivery('c1', 'queued');
    early.apply(
      next({
        type: 'item.completed',
        item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'later', clientMessageId: 'c1' },
      }),
    );
    expect(early.view().rows[0]).toMatchObject({ kind: 'user', delivery: 'queued' });

    const late = new Transcript();
    late.apply(
      eventStream()({
        type: 'item.completed',
        item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'more', clientMessageId: 'c2' },
      }),
    );
    late.noteDelivery('c2', 'steered');
    expect(late.view().rows[0]).toMatchObject({ kind: 'user', delivery: 'steered' });
  });

  it('counts passthrough frames without showing them, and notes a dormant session has no running turn', () => {
    const next = eventStream();
    const transcript = new Transcript();
    transcript.apply(next({ type: 'turn.started', input: { text: 'x' } }, { turnId: 't1' }));
    transcript.apply(next({ type: 'passthrough', frame: { type: 'mystery' }, reason: 'unknown' }, { turnId: 't1' }));
    expect(transcript.view()).toMatchObject({ passthroughCount: 1, runningTurnId: 't1', rows: [] });
    transcript.apply(
      next({
        type: 'notice',
        kind: 'info',
        message: 'The Reins daemon stopped; the session is dormant and the next send resumes the conversation.',
        data: { dormant: 'shutdown' },
      }),
    );
    expect(transcript.view().runningTurnId).toBeUndefined();
  });
});
