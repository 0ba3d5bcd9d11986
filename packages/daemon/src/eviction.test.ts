// Which sessions sleep: idle past the TTL, then least recently used over the cap; never a busy one.
import { describe, expect, it } from 'vitest';
import { Activity } from './activity.js';
import { chooseEvictions, type EvictionCandidate } from './eviction.js';

const idle = (sessionId: string, lastUsedAt: number, extra: Partial<EvictionCandidate> = {}): EvictionCandidate => ({
  sessionId,
  live: true,
  busyReason: undefined,
  lastUsedAt,
  ...extra,
});

describe('chooseEvictions', () => {
  it('puts sessions idle for the TTL to sleep, not younger ones', () => {
    const chosen = chooseEvictions([idle('old', 0), idle('young', 900)], 1_000, {
      idleTtlMs: 500,
      maxLiveSessions: 10,
    });
    expect(chosen).toEqual([{ sessionId: 'old', reason: 'idle' }]);
  });

  it('over the cap, the least recently used go first, as many as needed', () => {
    const chosen = chooseEvictions([idle('b', 20), idle('a', 10), idle('c', 30), idle('d', 40)], 50, {
      idleTtlMs: 0,
      maxLiveSessions: 2,
    });
    expect(chosen).toEqual([
      { sessionId: 'a', reason: 'lru' },
      { sessionId: 'b', reason: 'lru' },
    ]);
  });

  it('never chooses a busy session, even over the cap or past the TTL', () => {
    const busy = (id: string, at: number) => idle(id, at, { busyReason: 'turn t1 is running' });
    expect(chooseEvictions([busy('a', 0), busy('b', 0)], 10_000, { idleTtlMs: 10, maxLiveSessions: 1 })).toEqual([]);
    // It still counts toward the cap: the idle one goes instead.
    expect(chooseEvictions([busy('a', 0), idle('b', 5)], 10, { idleTtlMs: 0, maxLiveSessions: 1 })).toEqual([
      { sessionId: 'b', reason: 'lru' },
    ]);
  });

  it('counts TTL evictions toward the cap and ignores sessions without a process', () => {
    const chosen = chooseEvictions(
      [idle('a', 0), idle('b', 900), idle('c', 950), idle('x', 0, { live: false })],
      1_000,
      {
        idleTtlMs: 500,
        maxLiveSessions: 2,
      },
    );
    expect(chosen).toEqual([{ sessionId: 'a', reason: 'idle' }]);
  });
});

const envelope = { seq: 1, harness: 'claude-code', sessionId: 's', at: 1 } as const;

describe('Activity (what makes a session busy)', () => {
  it('a running turn, a pending permission, background work, or a non-idle harness status', () => {
    const activity = new Activity();
    expect(activity.busyReason).toBeUndefined();
    activity.observe({ ...envelope, turnId: 't1', type: 'turn.started', input: { text: 'hi' } });
    expect(activity.busyReason).toMatch(/turn t1 is running/);
    activity.observe({ ...envelope, turnId: 't1', type: 'turn.completed', outcome: { status: 'completed' } });
    expect(activity.busyReason).toBeUndefined();

    activity.observe({
      ...envelope,
      turnId: null,
      type: 'permission.requested',
      requestId: 'r1',
      tool: { kind: 'command', name: 'Bash' },
      options: [],
    });
    expect(activity.busyReason).toMatch(/permission/);
    activity.observe({
      ...envelope,
      turnId: null,
      type: 'permission.resolved',
      requestId: 'r1',
      decision: { behavior: 'deny' },
      by: 'client',
    });
    expect(activity.busyReason).toBeUndefined();

    // Work the harness runs after its turn ended (turnId null), e.g. a background subagent.
    const item = { kind: 'agent_message', id: 'bg-1', status: 'running', text: '' } as const;
    activity.observe({ ...envelope, turnId: null, parentItemId: 'task-1', type: 'item.started', item });
    expect(activity.busyReason).toMatch(/background/);
    activity.observe({
      ...envelope,
      turnId: null,
      parentItemId: 'task-1',
      type: 'item.completed',
      item: { ...item, status: 'completed', text: 'done' },
    });
    expect(activity.busyReason).toBeUndefined();

    activity.observe({ ...envelope, turnId: null, type: 'session.status', status: 'requires_action' });
    expect(activity.busyReason).toMatch(/requires_action/);
    activity.reset();
    expect(activity.busyReason).toBeUndefined();
  });
});
