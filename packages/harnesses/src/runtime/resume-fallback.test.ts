// The resume fallback on a stub harness: only a resume_failed of a spec that allows it falls back, the
// new session's spec says which fallback and why, and its notice comes right after session.started.
import { type Harness, ReinsError, type Session, SessionEventStream, type SessionSpec } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { sayResumeFallback, withResumeFallback } from './resume-fallback.js';

function stubHarness(fail: ReinsError | undefined): { harness: Harness; specs: SessionSpec[] } {
  const specs: SessionSpec[] = [];
  const harness = {
    async createSession(spec: SessionSpec) {
      specs.push(spec);
      if (spec.resume && fail) throw fail;
      return { id: `s${specs.length}` } as Session;
    },
  } as unknown as Harness;
  return { harness: withResumeFallback(harness), specs };
}

const refused = new ReinsError('resume_failed', 'no rollout found for thread id T');

describe('withResumeFallback', () => {
  it('starts a new conversation when the resume fails and the spec allows it, and says so in the spec', async () => {
    const { harness, specs } = stubHarness(refused);
    const session = await harness.createSession({ cwd: '/w', resume: { nativeSessionId: 'T', fallback: 'new' } });
    expect(session.id).toBe('s2');
    expect(specs[1]).toEqual({
      cwd: '/w',
      resumeFallback: { fallback: 'new', nativeSessionId: 'T', reason: 'no rollout found for thread id T' },
    });
  });

  it('without the permission, or for any other error, the error stands', async () => {
    await expect(
      stubHarness(refused).harness.createSession({ cwd: '/w', resume: { nativeSessionId: 'T' } }),
    ).rejects.toBe(refused);
    const other = new ReinsError('binary_not_found', 'no codex');
    const { harness, specs } = stubHarness(other);
    await expect(harness.createSession({ cwd: '/w', resume: { nativeSessionId: 'T', fallback: 'new' } })).rejects.toBe(
      other,
    );
    expect(specs).toHaveLength(1);
  });
});

describe('sayResumeFallback', () => {
  it('emits the notice once, right after the first session.started', async () => {
    const spec = { resumeFallback: { fallback: 'new' as const, nativeSessionId: 'T', reason: 'gone' } };
    let say: (event: Parameters<ReturnType<typeof sayResumeFallback>>[0]) => void = () => {};
    const stream = new SessionEventStream({ harness: 'codex', sessionId: 's', onEvent: (event) => say(event) });
    say = sayResumeFallback(spec, (notice) => stream.emit(notice));
    stream.emit({ type: 'session.started', cwd: '/w' });
    await Promise.resolve();
    stream.emit({ type: 'session.started', cwd: '/w' });
    await Promise.resolve();
    stream.close('requested');
    const types: string[] = [];
    for await (const event of stream.events)
      types.push(event.type === 'notice' ? `notice:${event.message}` : event.type);
    expect(types.slice(0, 2)).toEqual([
      'session.started',
      'notice:Conversation T could not be resumed (gone); as allowed (resume.fallback "new"), this session started a new one.',
    ]);
    expect(types.filter((type) => type.startsWith('notice'))).toHaveLength(1);
  });
});
