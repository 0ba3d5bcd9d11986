import type { SessionListing } from '@reins/client';
import { describe, expect, it } from 'vitest';
import { SessionDirectory, within } from './session-directory.js';

const listing = (sessionId: string, fields: Partial<SessionListing> = {}): SessionListing => ({
  sessionId,
  harness: 'codex',
  cwd: '/repo/app',
  status: 'idle',
  lastSeq: 3,
  createdAt: 1,
  updatedAt: 10,
  ...fields,
});

describe('SessionDirectory', () => {
  it('takes live status from status/snapshot and drops sessions the daemon no longer has', () => {
    const directory = new SessionDirectory();
    directory.replaceAll([listing('a'), listing('b', { updatedAt: 20 })]);
    expect(directory.stale).toBe(false);
    expect(directory.all().map((entry) => entry.sessionId)).toEqual(['b', 'a']);
    directory.applySnapshot({ sessions: [{ sessionId: 'a', status: 'running', lastSeq: 9, updatedAt: 30 }] });
    expect(directory.all()).toMatchObject([{ sessionId: 'a', status: 'running', lastSeq: 9, updatedAt: 30 }]);
    expect(directory.stale).toBe(false);
    directory.applySnapshot({
      sessions: [
        { sessionId: 'a', status: 'dormant', lastSeq: 9, updatedAt: 30 },
        { sessionId: 'new', status: 'starting', lastSeq: 0, updatedAt: 40 },
      ],
    });
    expect(directory.get('a')?.status).toBe('dormant');
    expect(directory.stale).toBe(true); // a session only session/list can describe
  });

  it('sessions/changed: deleted goes at once, closed shows closed, the rest asks for a new list', () => {
    const directory = new SessionDirectory();
    directory.replaceAll([listing('a'), listing('b')]);
    directory.applyChange({ sessionId: 'a', change: 'deleted' });
    expect(directory.get('a')).toBeUndefined();
    expect(directory.stale).toBe(false);
    directory.applyChange({ sessionId: 'b', change: 'closed' });
    expect(directory.get('b')?.status).toBe('closed');
    directory.replaceAll(directory.all());
    directory.applyChange({ sessionId: 'c', change: 'created' });
    expect(directory.stale).toBe(true);
  });

  it('filters by harness, by workspace (the folder and below) and by words', () => {
    const directory = new SessionDirectory();
    directory.replaceAll([
      listing('a', { harness: 'codex', cwd: '/repo/app', title: 'Fix the flaky test' }),
      listing('b', { harness: 'claude-code', cwd: '/repo/app/web', updatedAt: 11 }),
      listing('c', { harness: 'claude-code', cwd: '/repo/application', updatedAt: 12 }),
    ]);
    expect(directory.filtered({ harness: 'claude-code' }).map((entry) => entry.sessionId)).toEqual(['c', 'b']);
    expect(directory.filtered({ workspace: '/repo/app' }).map((entry) => entry.sessionId)).toEqual(['b', 'a']);
    expect(directory.filtered({ text: 'flaky CODEX' }).map((entry) => entry.sessionId)).toEqual(['a']);
    expect(directory.harnesses()).toEqual(['claude-code', 'codex']);
    expect(directory.workspaces()).toEqual(['/repo/application', '/repo/app/web', '/repo/app']);
  });

  it('within() is about folders, not string prefixes', () => {
    expect(within('/repo/app', '/repo/app/')).toBe(true);
    expect(within('/repo/app/x', '/repo/app')).toBe(true);
    expect(within('/repo/application', '/repo/app')).toBe(false);
  });
});
