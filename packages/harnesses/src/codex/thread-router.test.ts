// The routing rules of a shared app-server, on plain frames (host.test.ts drives them with sessions).
import { describe, expect, it } from 'vitest';
import { HELD_FRAMES, ThreadRouter, threadOf } from './thread-router.js';

type Frame = { method: string; params?: Record<string, unknown> };
const frame = (method: string, params?: Record<string, unknown>): Frame => ({ method, ...(params ? { params } : {}) });
type Router = ThreadRouter<string, Frame>;
/** What reached whom, in order, through the router's delivery callback. */
function routed(router: Router, sent: Frame): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  router.route(sent, 0, (lease, delivered) => out.push([lease, delivered.method]));
  return out;
}
function bound(router: Router, threadId: string, lease: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  router.bind(threadId, lease, 0, (to, delivered) => out.push([to, delivered.method]));
  return out;
}

describe('ThreadRouter', () => {
  it('a process that only ever had one session hands it everything, named or not', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    expect(routed(router, frame('item/started', { threadId: 'unknown' }))).toEqual([['a', 'item/started']]);
    expect(router.strayOwner()).toBe('a');
    expect(router.routeRequest({ threadId: 'unknown' })).toBe('a');
  });

  it('a process that opened a thread ahead keeps its frames from the sole session until a session binds it', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.expectThreadsAhead();
    expect(routed(router, frame('thread/started', { threadId: 't_ahead' }))).toEqual([]);
    expect(router.strayOwner()).toBeUndefined();
    expect(router.routeRequest({ threadId: 't_ahead' })).toBeUndefined();
    router.attach('b');
    expect(bound(router, 't_ahead', 'b')).toEqual([['b', 'thread/started']]);
  });

  it('with two sessions, frames go by thread; unnamed process-wide frames to both; strays to none', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    bound(router, 't_a', 'a');
    bound(router, 't_b', 'b');
    expect(routed(router, frame('turn/started', { threadId: 't_b' }))).toEqual([['b', 'turn/started']]);
    expect(routed(router, frame('configWarning', { summary: 'x' }))).toEqual([
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
    expect(routed(router, frame('thread/started', { thread: { id: 't_new' } }))).toEqual([]);
    expect(routed(router, frame('mcpServer/startupStatus/updated', { threadId: 't_new' }))).toEqual([]);
    expect(bound(router, 't_new', 'b')).toEqual([
      ['b', 'thread/started'],
      ['b', 'mcpServer/startupStatus/updated'],
    ]);
    for (let i = 0; i < HELD_FRAMES + 5; i++) routed(router, frame(`m${i}`, { threadId: 't_late' }));
    expect(router.dropped).toBe(5);
    const flushed = bound(router, 't_late', 'a');
    expect(flushed).toHaveLength(HELD_FRAMES);
    expect(flushed[0]?.[1]).toBe('m5');
  });

  it('a session that left takes its threads with it: their late frames reach no one, not even a sole survivor', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    bound(router, 't_a', 'a');
    bound(router, 't_b', 'b');
    expect(router.detach('a')).toEqual(['t_a']);
    expect(routed(router, frame('item/agentMessage/delta', { threadId: 't_a' }))).toEqual([]);
    expect(router.dropped).toBe(1);
    expect(router.routeRequest({ threadId: 't_a' })).toBeUndefined();
    expect(router.owns('t_a')).toBe(false);
  });

  it('a subagent thread is claimed for its parent by thread/started (parent_thread_id) or a collabAgentToolCall item', () => {
    const router = new ThreadRouter<string, Frame>();
    router.attach('a');
    router.attach('b');
    bound(router, 't_a', 'a');
    routed(router, frame('item/started', { threadId: 't_held_child', itemId: 'x' }));
    const spawned = frame('thread/started', {
      thread: { id: 't_held_child', source: { subAgent: { thread_spawn: { parent_thread_id: 't_a', depth: 1 } } } },
    });
    expect(threadOf(spawned)).toBe('t_a');
    expect(routed(router, spawned)).toEqual([
      ['a', 'thread/started'],
      ['a', 'item/started'],
    ]);
    const collab = frame('item/completed', {
      threadId: 't_a',
      item: { type: 'collabAgentToolCall', id: 'c', receiverThreadIds: ['t_other_child'] },
    });
    routed(router, collab);
    expect(router.owns('t_other_child')).toBe(true);
    expect(routed(router, frame('turn/started', { threadId: 't_other_child' }))).toEqual([['a', 'turn/started']]);
  });
});
