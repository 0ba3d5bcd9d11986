// Under posture `ask`, a command that ran without a permission request (the harness's own allow rules let it)
// is told apart from one the user approved, whichever of the request and the call's row comes first.
import type { ToolCallItem } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { ranWithoutAsking, type ToolRow } from './rows.js';
import { Transcript } from './transcript.js';

const t = { turnId: 't1' };
const echo = (id: string, status: ToolCallItem['status']): ToolCallItem => ({
  kind: 'tool_call',
  id,
  status,
  tool: { kind: 'command', name: 'Bash' },
  input: { command: 'echo hi' },
});

function toolRows(transcript: Transcript): ToolRow[] {
  return transcript.view().rows.filter((row): row is ToolRow => row.kind === 'tool');
}

describe('tool calls that ran without asking', () => {
  it('flags a completed command no permission request named, only under ask', () => {
    const next = eventStream('s1', 'claude-code');
    const transcript = new Transcript();
    transcript.apply(next({ type: 'turn.started', input: { text: 'say hi' } }, t));
    transcript.apply(next({ type: 'item.started', item: echo('c1', 'running') }, t));
    const [running] = toolRows(transcript);
    expect(running && ranWithoutAsking(running, 'ask')).toBe(false); // not run yet
    transcript.apply(next({ type: 'item.completed', item: echo('c1', 'completed') }, t));
    const [done] = toolRows(transcript);
    expect(done?.asked).toBe(false);
    expect(done && ranWithoutAsking(done, 'ask')).toBe(true);
    expect(done && ranWithoutAsking(done, 'bypass')).toBe(false);
    expect(done && ranWithoutAsking(done, undefined)).toBe(false);
  });

  it('does not flag a command the user was asked about, request before or after its row', () => {
    for (const order of ['request first', 'row first'] as const) {
      const next = eventStream('s1', 'claude-code');
      const transcript = new Transcript();
      transcript.apply(next({ type: 'turn.started', input: { text: 'say hi' } }, t));
      const request = () =>
        transcript.apply(
          next(
            {
              type: 'permission.requested',
              requestId: 'p1',
              itemId: 'c1',
              tool: { kind: 'command', name: 'Bash' },
              options: [],
            },
            t,
          ),
        );
      if (order === 'request first') request();
      transcript.apply(next({ type: 'item.started', item: echo('c1', 'running') }, t));
      if (order === 'row first') request();
      transcript.apply(next({ type: 'item.completed', item: echo('c1', 'completed') }, t));
      const [done] = toolRows(transcript);
      expect(done?.asked, order).toBe(true);
      expect(done && ranWithoutAsking(done, 'ask'), order).toBe(false);
    }
  });

  it('never flags reads and other tools, which harnesses run without asking by design', () => {
    const next = eventStream('s1', 'claude-code');
    const transcript = new Transcript();
    transcript.apply(next({ type: 'turn.started', input: { text: 'read it' } }, t));
    const read: ToolCallItem = { ...echo('r1', 'completed'), tool: { kind: 'other', name: 'Read' } };
    transcript.apply(next({ type: 'item.completed', item: read }, t));
    const [row] = toolRows(transcript);
    expect(row && ranWithoutAsking(row, 'ask')).toBe(false);
  });
});
