// Whether a session's spec fits the thread a warm app-server opened ahead, and the notice of a miss.
import type { SessionSpec } from '@reins/core';
import { describe, expect, it } from 'vitest';
import {
  lastSessionSource,
  type ThreadSettings,
  type ThreadTemplate,
  threadAheadMisfit,
  threadAheadMissNotice,
} from './thread-ahead.js';

const ahead: SessionSpec = { cwd: '/work/a', model: 'gpt-5.4', posture: 'bypass' };

describe('threadAheadMisfit', () => {
  it('fits a spec with the same thread settings, whatever it sets per turn (effort, outputSchema)', () => {
    expect(threadAheadMisfit({ ...ahead, effort: 'high', outputSchema: { type: 'object' } }, ahead)).toBeUndefined();
    // bypass is the default posture: leaving it out asks for the same thread.
    expect(threadAheadMisfit({ cwd: '/work/a', model: 'gpt-5.4' }, ahead)).toBeUndefined();
  });

  it('names the first field that asks for another thread', () => {
    expect(threadAheadMisfit({ ...ahead, cwd: '/work/b' }, ahead)).toBe('cwd');
    expect(threadAheadMisfit({ ...ahead, model: undefined }, ahead)).toBe('model');
    expect(threadAheadMisfit({ ...ahead, posture: 'workspace' }, ahead)).toBe('posture');
    expect(threadAheadMisfit({ ...ahead, systemPrompt: { append: 'Be brief.' } }, ahead)).toBe('systemPrompt');
    expect(threadAheadMisfit({ ...ahead, mcpServers: [{ name: 'x', transport: 'stdio', command: 'x' }] }, ahead)).toBe(
      'mcpServers',
    );
    expect(threadAheadMisfit({ ...ahead, ephemeral: true }, ahead)).toBe('ephemeral');
    expect(threadAheadMisfit({ ...ahead, resume: { nativeSessionId: 't' } }, ahead)).toBe('resume');
    expect(threadAheadMisfit({ ...ahead, resume: { nativeSessionId: 't', fork: true } }, ahead)).toBe('fork');
  });

  it('a miss is an info notice naming its reason', () => {
    const notice = threadAheadMissNotice('instructions_changed');
    expect(notice).toMatchObject({ kind: 'info', data: { warmThread: 'missed', reason: 'instructions_changed' } });
    expect(notice.message).toMatch(/AGENTS\.md/);
  });
});

describe('lastSessionSource', () => {
  const made: ThreadSettings[] = [];
  const template = (settings: ThreadSettings): ThreadTemplate => {
    if (settings.cwd === '/refused') throw new Error('no such folder');
    made.push(settings);
    return { spec: settings, fingerprint: async () => '', refillDelayMs: 0 };
  };

  it('has nothing before a session, then the thread settings of the last one (one template per change)', () => {
    made.length = 0;
    const source = lastSessionSource(template);
    expect(source.current()).toBeUndefined();
    const first = source.learn?.({ ...ahead, effort: 'high', resume: { nativeSessionId: 't' } });
    // Only what thread/start fixes is kept: no effort, no resume.
    expect(first?.spec).toEqual(ahead);
    expect(source.current()).toBe(first);
    // The same thread settings keep the template.
    expect(source.learn?.({ ...ahead, effort: 'low' })).toBe(first);
    const moved = source.learn?.({ ...ahead, cwd: '/work/b' });
    expect(moved?.spec.cwd).toBe('/work/b');
    expect(source.current()).toBe(moved);
    expect(made).toHaveLength(2);
    // Settings the template refuses leave the last good one.
    expect(source.learn?.({ cwd: '/refused' })).toBe(moved);
  });
});
