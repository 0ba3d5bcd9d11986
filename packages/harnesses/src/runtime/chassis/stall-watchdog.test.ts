// What counts as the running turn's progress for the stall watchdog, and what does not.
import type { ReinsEvent } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { isTurnProgress } from './stall-watchdog.js';

const base = { seq: 1, harness: 'codex', sessionId: 's', at: 1 };
const inTurn = (event: object, turnId: string | null = 't1') => ({ ...base, turnId, ...event }) as ReinsEvent;
const tool = { kind: 'tool_call', id: 'i', status: 'running', tool: { kind: 'command', name: 'sh' } };

describe('isTurnProgress', () => {
  it('counts the turn own items, deltas, approvals, usage and retry/compaction/hook notices', () => {
    for (const event of [
      inTurn({ type: 'item.started', item: tool }),
      inTurn({ type: 'item.delta', itemId: 'i', kind: 'tool_output', text: 'x' }),
      inTurn({ type: 'item.completed', item: { ...tool, status: 'completed' }, parentItemId: 'p' }),
      inTurn({ type: 'permission.requested', requestId: 'r', tool: 'sh', options: [] }),
      inTurn({ type: 'usage.updated', turn: { input: 1 } }),
      inTurn({ type: 'notice', kind: 'retry', message: 'retrying' }),
      inTurn({ type: 'notice', kind: 'compaction', message: 'compacting' }),
    ]) {
      expect(isTurnProgress(event, 't1'), event.type).toBe(true);
    }
  });

  it('does not count chatter: passthroughs, session updates, rate-limit notices, other turns, background work', () => {
    for (const event of [
      inTurn({ type: 'passthrough', frame: { method: 'account/rateLimits/updated' } }),
      inTurn({ type: 'session.updated', title: 'x' }),
      inTurn({ type: 'session.status', status: 'running' }),
      inTurn({ type: 'notice', kind: 'rate_limit', message: 'limits' }),
      inTurn({ type: 'notice', kind: 'warning', message: 'unknown frame' }),
      inTurn({ type: 'item.delta', itemId: 'i', kind: 'text', text: 'x' }, 't0'),
      inTurn({ type: 'item.completed', item: { ...tool, status: 'completed' } }, null),
    ]) {
      expect(isTurnProgress(event, 't1'), event.type).toBe(false);
    }
  });
});
