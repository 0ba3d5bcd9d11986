import { describe, expect, it } from 'vitest';
import { Liveness } from './liveness.js';
import type { MemberRecord } from './records.js';

const worker = (id: string, labels: Record<string, string>, liveSessions = 0, epoch = 'e1'): MemberRecord => ({
  role: 'worker',
  id,
  epoch,
  labels,
  harnesses: ['codex', 'claude-code'],
  liveSessions,
  host: 'h',
  pid: 1,
  startedAt: 0,
});

describe('liveness', () => {
  const w1 = worker('w1', {});
  const self = { ...worker('g1', {}), role: 'gateway' as const };

  it('finds a worker gone once its heartbeats stopped for the deadline, while our own come back', () => {
    const view = new Liveness(1_000, 'gateway.g1');
    view.beat('gateway.g1', self, 0);
    view.beat('worker.w1', w1, 0);
    expect(view.holderMayBeAlive('w1', 'e1', 900)).toBe(true);
    view.beat('gateway.g1', self, 400);
    view.beat('gateway.g1', self, 800);
    view.beat('gateway.g1', self, 1_200);
    expect(view.holderMayBeAlive('w1', 'e1', 1_201)).toBe(false);
    expect(view.liveWorkers(1_201)).toEqual([]);
  });

  it('declares nobody gone while its own heartbeats do not come back, and gives everyone a deadline after', () => {
    const view = new Liveness(1_000, 'gateway.g1');
    view.beat('gateway.g1', self, 0);
    view.beat('worker.w1', w1, 0);
    // We were cut off for 5 s: we cannot tell.
    expect(view.isCurrent(5_000)).toBe(false);
    expect(view.holderMayBeAlive('w1', 'e1', 5_000)).toBe(true);
    // Back: w1 gets a whole deadline from now.
    view.beat('gateway.g1', self, 5_000);
    expect(view.holderMayBeAlive('w1', 'e1', 5_900)).toBe(true);
    view.beat('gateway.g1', self, 5_400);
    view.beat('gateway.g1', self, 5_800);
    view.beat('gateway.g1', self, 6_200);
    expect(view.holderMayBeAlive('w1', 'e1', 6_201)).toBe(false);
  });

  it('ends a run when the worker leaves or comes back as another run', () => {
    const view = new Liveness(1_000, 'gateway.g1');
    view.beat('gateway.g1', self, 0);
    view.beat('worker.w1', w1, 0);
    view.beat('worker.w1', { ...w1, epoch: 'e2' }, 100);
    expect(view.holderMayBeAlive('w1', 'e1', 100)).toBe(false);
    expect(view.holderMayBeAlive('w1', 'e2', 100)).toBe(true);
    view.left('worker.w1');
    expect(view.holderMayBeAlive('w1', 'e2', 200)).toBe(true); // unknown to a young view: not yet
    view.beat('gateway.g1', self, 400);
    view.beat('gateway.g1', self, 800);
    view.beat('gateway.g1', self, 1_100);
    expect(view.holderMayBeAlive('w1', 'e2', 1_101)).toBe(false);
  });
});
