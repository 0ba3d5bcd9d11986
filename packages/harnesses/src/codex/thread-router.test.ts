// The routing rules of a shared app-server, on plain frames (host.test.ts drives them with sessions).
import { describe, expect, it } from 'vitest';
import { HELD_FRAMES, ThreadRouter, threadOf } from './thread-router.js';

type Frame = { method: string; params?: Record<string, unknown> };
const frame = (method: string, params?: Record<string, unknown>): Frame => ({ method, ...(params ? { params } : {}) });
const to = (deliveries: Array<{ lease: string; frame: Frame }>) =>
  deliveries.map((delivery) => [delivery.lease, delivery.frame.method]);

describe('ThreadRouter', () => {
  it('a process that only ever had one session hands it everything, named or not', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    expect(to(router.route(frame('item/started', { threadId: 'unknown' })))).toEqual([['a', 'item/started']]);
    expect(router.strayOwner()).toBe('a');
    expect(router.routeRequest({ threadId: 'unknown' })).toBe('a');
  });

  it('with two sessions, frames go by thread; unnamed process-wide frames to both; strays to none', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    router.bind('t_a', 'a');
    router.bind('t_b', 'b');
    expect(to(router.route(frame('turn/started', { threadId: 't_b' })))).toEqual([['b', 'turn/started']]);
    expect(to(router.route(frame('configWarning', { summary: 'x' })))).toEqual([
      ['a', 'configWarning'],
      ['b', 'configWarning'],
    ]);
    expect(router.strayOwner()).toBeUndefined();
    expect(router.routeRequest({ threadId: 't_a' })).toBe('a');
    expect(router.routeRequest({ threadId: 'stranger' })).toBeUndefined();
    expect(router.routeRequest({})).toBeUndefined();
  });

  it('holds frames of a thread nobody claimed, hands them over in order on bind, within a bound', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    expect(router.route(frame('thread/started', { thread: { id: 't_new' } }))).toEqual([]);
    expect(router.route(frame('mcpServer/startupStatus/updated', { threadId: 't_new' }))).toEqual([]);
    expect(to(router.bind('t_new', 'b'))).toEqual([
      ['b', 'thread/started'],
      ['b', 'mcpServer/startupStatus/updated'],
    ]);
    for (let i = 0; i < HELD_FRAMES + 5; i++) router.route(frame(`m${i}`, { threadId: 't_late' }));
    expect(router.dropped).toBe(5);
    const flushed = router.bind('t_late', 'a');
    expect(flushed).toHaveLength(HELD_FRAMES);
    expect(flushed[0]?.frame.method).toBe('m5');
  });

  it('a session that left takes its threads with it: their late frames reach no one, not even a sole survivor', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    router.bind('t_a', 'a');
    router.bind('t_b', 'b');
    expect(router.detach('a')).toEqual(['t_a']);
    expect(router.route(frame('item/agentMessage/delta', { threadId: 't_a' }))).toEqual([]);
    expect(router.dropped).toBe(1);
    expect(router.routeRequest({ threadId: 't_a' })).toBeUndefined();
    expect(router.owns('t_a')).toBe(false);
  });

  it('a subagent thread is claimed for its parent by thread/started (parent_thread_id) or a collabAgentToolCall item', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    router.bind('t_a', 'a');
    router.route(frame('item/started', { threadId: 't_held_child', itemId: 'x' }));
    const spawned = frame('thread/started', {
      thread: { id: 't_held_child', source: { subAgent: { thread_spawn: { parent_thread_id: 't_a', depth: 1 } } } },
    });
    expect(threadOf(spawned)).toBe('t_a');
    expect(to(router.route(spawned))).toEqual([
      ['a', 'thread/started'],
      ['a', 'item/started'],
    ]);
    const collab = frame('item/completed', {
      threadId: 't_a',
      item: { type: 'collabAgentToolCall', id: 'c', receiverThreadIds: ['t_other_child'] },
    });
    router.route(collab);
    expect(router.owns('t_other_child')).toBe(true);
    expect(to(router.route(frame('turn/started', { threadId: 't_other_child' })))).toEqual([['a', 'turn/started']]);
  });
});
