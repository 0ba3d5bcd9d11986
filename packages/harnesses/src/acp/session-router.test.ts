// The routing of agent -> client frames by sessionId (session-router.ts), with plain sinks.
import { describe, expect, it } from 'vitest';
import { SessionRouter } from './session-router.js';

type Sink = { name: string; got: string[] };
const sink = (name: string): Sink => ({ name, got: [] });
const frame = (text: string) => (target: Sink) => target.got.push(text);

describe('SessionRouter', () => {
  it('delivers a frame to the session it names, never to another', () => {
    const router = new SessionRouter<Sink>();
    const a = sink('a');
    const b = sink('b');
    router.register('A', a);
    router.register('B', b);
    router.route('A', frame('for a'));
    router.route('B', frame('for b'));
    expect(a.got).toEqual(['for a']);
    expect(b.got).toEqual(['for b']);
    expect(router.dropped).toBe(0);
  });

  it('holds frames of a session not registered yet and hands them over, in order, when it registers', () => {
    const router = new SessionRouter<Sink>();
    router.route('A', frame('one'));
    router.route('A', frame('two'));
    const a = sink('a');
    const pending = router.register('A', a);
    for (const deliver of pending) deliver(a);
    expect(a.got).toEqual(['one', 'two']);
    expect(router.register('A', a)).toEqual([]);
  });

  it('drops and counts the frames of a session that left; a session registering again under that id is live again', () => {
    const router = new SessionRouter<Sink>();
    const a = sink('a');
    router.register('A', a);
    router.unregister('A');
    router.route('A', frame('late'));
    expect(a.got).toEqual([]);
    expect(router.dropped).toBe(1);
    router.register('A', a);
    router.route('A', frame('again'));
    expect(a.got).toEqual(['again']);
  });

  it('bounds what it holds: per session and in sessions, the rest dropped and counted', () => {
    const router = new SessionRouter<Sink>();
    for (let i = 0; i < 1005; i++) router.route('A', frame(`f${i}`));
    expect(router.dropped).toBe(5);
    for (let i = 0; i < 70; i++) router.route(`S${i}`, frame('x'));
    // 63 more held sessions fit beside A (64 in all); 7 sessions' frames are dropped.
    expect(router.dropped).toBe(12);
    const a = sink('a');
    expect(router.register('A', a)).toHaveLength(1000);
  });

  it('a frame naming no session goes to the only session of a never-shared process, else nobody (counted)', () => {
    const router = new SessionRouter<Sink>();
    expect(router.strayOwner()).toBeUndefined();
    const a = sink('a');
    router.register('A', a);
    expect(router.strayOwner()).toBe(a);
    router.register('B', sink('b'));
    expect(router.strayOwner()).toBeUndefined();
    router.unregister('B');
    // Once shared, always: a line the process writes may still be about B.
    expect(router.strayOwner()).toBeUndefined();
    expect(router.dropped).toBe(3);
  });
});
