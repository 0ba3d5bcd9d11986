// Valid Reins event sequences for the bridges' translation fuzzer: each one a whole session as an
// adapter hands it over (stamped by the real SessionEventStream, which closes what a turn leaves
// open), covering every event type, item kind, tool kind and turn outcome the bridges translate.
import { type EventPayload, type ReinsEvent, SessionEventStream, type TurnInput, type TurnOutcome } from '@reins/core';

type Step =
  | { turn: TurnInput }
  | { emit: EventPayload; parent?: string }
  | { complete: TurnOutcome; extra?: Record<string, unknown> }
  | { close: 'requested' | 'process_exited' | 'error' };

function record(name: string, steps: Step[]): { name: string; events: ReinsEvent[] } {
  const events: ReinsEvent[] = [];
  let clock = 1_800_000_000_000;
  const stream = new SessionEventStream({
    harness: 'claude-code',
    sessionId: `rs_${name}`,
    now: () => (clock += 7),
    onEvent: (event) => events.push(structuredClone(event)),
  });
  stream.emit({ type: 'session.started', cwd: '/work', harnessVersion: '1.0.0', model: 'fake-model' });
  for (const step of steps) {
    if ('turn' in step) stream.startTurn(step.turn);
    else if ('emit' in step) stream.emit(step.emit, step.parent ? { parentItemId: step.parent } : {});
    else if ('complete' in step) stream.completeTurn({ outcome: step.complete, ...step.extra });
    else stream.close(step.close, step.close === 'requested' ? undefined : { code: 'process_exited', message: 'gone' });
  }
  return { name, events };
}

const text = (id: string, value: string): Step[] => [
  { emit: { type: 'item.started', item: { kind: 'agent_message', id, status: 'running', text: '' } } },
  { emit: { type: 'item.delta', itemId: id, kind: 'text', text: value.slice(0, 5) } },
  { emit: { type: 'item.delta', itemId: id, kind: 'text', text: value.slice(5) } },
  { emit: { type: 'item.completed', item: { kind: 'agent_message', id, status: 'completed', text: value } } },
];

const usage: Step = {
  emit: {
    type: 'usage.updated',
    turn: { input: 120, output: 9, cachedInput: 100 },
    total: { input: 240, output: 18, cachedInput: 200, reasoning: 3 },
    context: { used: 129, window: 200_000 },
    costUsd: { amount: 0.01, currency: 'USD', source: 'provider' },
  },
};

export const EVENT_CORPUS: { name: string; events: ReinsEvent[] }[] = [
  record('text', [
    {
      emit: {
        type: 'session.updated',
        nativeSessionId: 'native-1',
        model: 'fake-model',
        effort: 'low',
        title: 'A title',
      },
    },
    { emit: { type: 'session.status', status: 'running' } },
    {
      turn: {
        text: 'Say hello',
        images: [{ source: 'data', mediaType: 'image/png', data: 'AAAA' }],
        files: [{ path: '/work/a.ts' }],
      },
    },
    {
      emit: {
        type: 'item.started',
        item: { kind: 'user_message', id: 'u1', status: 'running', text: 'Say hello', clientMessageId: 'c1' },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'user_message', id: 'u1', status: 'completed', text: 'Say hello' },
      },
    },
    { emit: { type: 'item.started', item: { kind: 'reasoning', id: 'r1', status: 'running', text: '' } } },
    { emit: { type: 'item.delta', itemId: 'r1', kind: 'reasoning', text: 'Hmm.' } },
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'reasoning', id: 'r1', status: 'completed', text: 'Hmm.', summary: 'Thought' },
      },
    },
    ...text('m1', 'Hello there, friend.'),
    usage,
    { complete: { status: 'completed' }, extra: { usage: usage.emit, stopReason: 'end_turn' } },
    { emit: { type: 'session.status', status: 'idle' } },
  ]),
  record('tools', [
    { turn: { text: 'Use every tool' } },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 't1',
          status: 'running',
          tool: { kind: 'command', name: 'Bash', title: 'ls' },
          input: { command: 'ls' },
        },
      },
    },
    { emit: { type: 'item.delta', itemId: 't1', kind: 'tool_output', text: 'a\n' } },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't1',
          status: 'completed',
          tool: { kind: 'command', name: 'Bash' },
          input: { command: 'ls' },
          output: { text: 'a\n' },
          exitCode: 0,
        },
      },
    },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 't2',
          status: 'running',
          tool: { kind: 'file_change', name: 'Write' },
          input: { file_path: '/work/x', content: 'x\n' },
        },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't2',
          status: 'completed',
          tool: { kind: 'file_change', name: 'Write' },
          input: { file_path: '/work/x', content: 'x\n' },
          changes: [{ path: '/work/x', kind: 'add' }],
        },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't3',
          status: 'completed',
          tool: { kind: 'file_change', name: 'apply_patch' },
          input: {},
          changes: [
            { path: '/work/y', kind: 'update', diff: '@@ -1 +1 @@\n-a\n+b\n' },
            { path: '/work/z', kind: 'move', movePath: '/work/w' },
            { path: '/work/v', kind: 'delete' },
          ],
        },
      },
    },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 't4',
          status: 'running',
          tool: { kind: 'mcp', name: 'mcp__echo__say' },
          input: { text: 'ping' },
        },
      },
    },
    { emit: { type: 'item.delta', itemId: 't4', kind: 'tool_output', text: 'working' } },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't4',
          status: 'failed',
          tool: { kind: 'mcp', name: 'mcp__echo__say' },
          input: { text: 'ping' },
          output: { text: 'no', structured: { ok: false } },
        },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't5',
          status: 'completed',
          tool: { kind: 'web_search', name: 'WebSearch' },
          input: { query: 'reins' },
          output: { structured: [{ title: 'x' }] },
        },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't6',
          status: 'declined',
          tool: { kind: 'other', name: 'WebFetch' },
          input: { url: 'http://127.0.0.1/' },
        },
      },
    },
    { emit: { type: 'item.delta', itemId: 't6', kind: 'tool_input', text: '{"url"' } },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'plan',
          id: 'p1',
          status: 'running',
          entries: [
            { text: 'Read', status: 'completed' },
            { text: 'Write', status: 'in_progress', priority: 'high' },
          ],
        },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'plan',
          id: 'p1',
          status: 'completed',
          entries: [
            { text: 'Read', status: 'completed' },
            { text: 'Write', status: 'completed' },
          ],
        },
      },
    },
    { emit: { type: 'item.started', item: { kind: 'compaction', id: 'c1', status: 'running', trigger: 'auto' } } },
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'compaction', id: 'c1', status: 'completed', preTokens: 1000, postTokens: 100 },
      },
    },
    ...text('m2', 'All tools were used.'),
    { complete: { status: 'completed' } },
  ]),
  record('subagent', [
    { turn: { text: 'Delegate' } },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 'task',
          status: 'running',
          tool: { kind: 'subagent', name: 'Task' },
          input: { prompt: 'Look', model: 'haiku' },
        },
      },
    },
    {
      emit: { type: 'item.started', item: { kind: 'agent_message', id: 'sub', status: 'running', text: '' } },
      parent: 'task',
    },
    { emit: { type: 'item.delta', itemId: 'sub', kind: 'text', text: 'Found it.' }, parent: 'task' },
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'agent_message', id: 'sub', status: 'completed', text: 'Found it.' },
      },
      parent: 'task',
    },
    { emit: { type: 'usage.updated', turn: { input: 1, output: 1 } }, parent: 'task' },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 'task',
          status: 'completed',
          tool: { kind: 'subagent', name: 'Task' },
          input: { prompt: 'Look' },
          output: { text: 'Found it.' },
        },
      },
    },
    { complete: { status: 'completed' }, extra: { structuredOutput: { verdict: 'pass' } } },
  ]),
  record('failed-and-cancelled', [
    { turn: { text: 'Hello?' } },
    { emit: { type: 'notice', kind: 'retry', message: 'Retrying in 2 s.' } },
    {
      emit: {
        type: 'error',
        code: 'provider_error',
        message: 'overloaded',
        fatal: false,
        retryable: true,
        data: { kind: 'overloaded' },
      },
    },
    { emit: { type: 'item.started', item: { kind: 'agent_message', id: 'm1', status: 'running', text: '' } } },
    { emit: { type: 'item.delta', itemId: 'm1', kind: 'text', text: 'Partial' } },
    {
      complete: {
        status: 'failed',
        error: { code: 'unsupported_model', message: 'unsupported model "x"', data: { model: 'x' } },
      },
    },
    { turn: { text: 'Sleep' } },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 't1',
          status: 'running',
          tool: { kind: 'command', name: 'Bash' },
          input: { command: 'sleep 60' },
        },
      },
    },
    { complete: { status: 'cancelled' } },
    { turn: { text: 'Again' } },
    {
      complete: {
        status: 'failed',
        error: { code: 'provider_error', message: 'rate limited', data: { kind: 'rate_limited' } },
      },
    },
    { emit: { type: 'notice', kind: 'deprecation', message: 'Old flag.' } },
    { emit: { type: 'notice', kind: 'warning', message: 'Careful.' } },
    { emit: { type: 'notice', kind: 'info', message: 'FYI.' } },
    { close: 'process_exited' },
  ]),
  record('approvals-and-replay', [
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'user_message', id: 'old', status: 'completed', text: 'replayed', replay: true },
      },
    },
    {
      emit: {
        type: 'item.completed',
        item: { kind: 'agent_message', id: 'old-a', status: 'completed', text: 'replayed answer' },
      },
    },
    { emit: { type: 'passthrough', frame: { some: 'native frame' } } },
    { turn: { text: 'Touch a file' } },
    { emit: { type: 'session.status', status: 'requires_action' } },
    {
      emit: {
        type: 'item.started',
        item: {
          kind: 'tool_call',
          id: 't1',
          status: 'running',
          tool: { kind: 'command', name: 'Bash' },
          input: { command: 'touch a' },
        },
      },
    },
    {
      emit: {
        type: 'permission.requested',
        requestId: 'p1',
        tool: { kind: 'command', name: 'Bash' },
        input: { command: 'touch a' },
        itemId: 't1',
        options: [
          { id: 'allow', kind: 'allow_once', label: 'Allow' },
          { id: 'deny', kind: 'reject_once', label: 'Deny' },
        ],
      },
    },
    { emit: { type: 'permission.resolved', requestId: 'p1', decision: { behavior: 'allow' }, by: 'client' } },
    {
      emit: {
        type: 'item.completed',
        item: {
          kind: 'tool_call',
          id: 't1',
          status: 'completed',
          tool: { kind: 'command', name: 'Bash' },
          input: { command: 'touch a' },
          exitCode: 0,
        },
      },
    },
    ...text('m1', 'Touched it.'),
    { complete: { status: 'completed' } },
    { close: 'requested' },
  ]),
];
