// daemonHarness over an in-memory daemon connection: the harness questions go to the daemon's harness/*
// methods for this harness id, conversations are read page by page to the end, discovery is the
// daemon's (its listing asked once, and only when discovery is), sessions come from session/create
// unchanged, and the bridge warms nothing itself.
import type { Health, Session, SessionSpec, SessionSummary } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { type DaemonHarnessListing, type DaemonSessions, daemonHarness } from './daemon-sessions.js';

const CODEX = { id: 'codex' as const, displayName: 'Codex' };
const BINARY = { path: '/opt/codex', version: '0.171.0', sha256: 'a'.repeat(64), source: 'path' as const };

function listing(found: boolean, health: Partial<Health> = {}): DaemonHarnessListing {
  return {
    id: 'codex',
    displayName: 'Codex',
    discovery: found
      ? { found: true, path: BINARY.path, version: BINARY.version }
      : { found: false, hint: 'set REINS_CODEX_BIN' },
    health: { status: found ? 'ready' : 'not_installed', ...(found ? { binary: BINARY } : {}), ...health },
  };
}

/** A daemon that keeps `conversations` and records every call. */
function daemonWith(conversations: number, offered: DaemonHarnessListing[] = []) {
  const calls: unknown[][] = [];
  const all: SessionSummary[] = Array.from({ length: conversations }, (_, index) => ({
    nativeSessionId: `thread-${index}`,
    cwd: '/work',
  }));
  const session = { id: 'daemon-session-1' } as Session;
  const daemon: DaemonSessions = {
    harnesses: async () => {
      calls.push(['harnesses']);
      return offered;
    },
    capabilities: async (harness) => {
      calls.push(['capabilities', harness]);
      return {} as never;
    },
    models: async (harness) => {
      calls.push(['models', harness]);
      return [{ id: 'gpt-5.4' }];
    },
    harnessSessions: async (harness, options) => {
      calls.push(['harnessSessions', harness, options]);
      const offset = options.offset ?? 0;
      return all.slice(offset, offset + (options.limit ?? 50));
    },
    history: async (harness, nativeSessionId, options) => {
      calls.push(['history', harness, nativeSessionId, options]);
      return [];
    },
    createSession: async (harness, spec: SessionSpec) => {
      calls.push(['createSession', harness, spec]);
      return session;
    },
  };
  return { daemon, calls, session };
}

describe('daemonHarness', () => {
  it('asks the daemon for this harness and hands its session over unchanged', async () => {
    const { daemon, calls, session } = daemonWith(0);
    const harness = daemonHarness(daemon, CODEX);
    expect(harness.id).toBe('codex');
    expect(harness.warm).toBeUndefined();
    expect(await harness.models?.()).toEqual([{ id: 'gpt-5.4' }]);
    await harness.capabilities();
    await harness.history?.('thread-1', { cwd: '/work' });
    const spec: SessionSpec = { cwd: '/work', model: 'gpt-5.4', resume: { nativeSessionId: 'thread-1' } };
    expect(await harness.createSession(spec)).toBe(session);
    expect(calls).toEqual([
      ['models', 'codex'],
      ['capabilities', 'codex'],
      ['history', 'codex', 'thread-1', { cwd: '/work' }],
      ['createSession', 'codex', spec],
    ]);
  });

  it('reads every page of the conversations, the cwd filter on each', async () => {
    const { daemon, calls } = daemonWith(1_001);
    const listed = await daemonHarness(daemon, CODEX).listSessions?.({ cwd: '/work' });
    expect(listed?.map((entry) => entry.nativeSessionId)).toEqual(
      Array.from({ length: 1_001 }, (_, index) => `thread-${index}`),
    );
    expect(calls.map((call) => call[2])).toEqual([
      { cwd: '/work', limit: 500, offset: 0 },
      { cwd: '/work', limit: 500, offset: 500 },
      { cwd: '/work', limit: 500, offset: 1_000 },
    ]);
  });

  it("discovers the daemon's binary, or says why it has none, asking for its listing once", async () => {
    const found = daemonWith(0, [listing(true)]);
    const harness = daemonHarness(found.daemon, CODEX);
    expect(found.calls).toEqual([]);
    expect(await harness.discover()).toEqual({ found: true, binary: BINARY });
    expect((await harness.health()).status).toBe('ready');
    expect(found.calls).toEqual([['harnesses']]);

    const missing = daemonWith(0, [listing(false)]);
    expect(await daemonHarness(missing.daemon, CODEX).discover()).toMatchObject({
      found: false,
      hint: 'The Reins daemon has no Codex: set REINS_CODEX_BIN',
    });
    const notOffered = await daemonHarness(daemonWith(0).daemon, CODEX).discover();
    expect(notOffered).toMatchObject({ found: false, hint: expect.stringMatching(/does not offer Codex/) });
  });
});
