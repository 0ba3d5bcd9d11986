// Schema migrations: a store made by the previous schema version (built here by running only the
// migrations up to it, which are never edited once released) opens with this build, keeps its
// sessions and events, and gains what the new version adds; a store from a newer Reins is refused.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { openSqlite } from './sqlite-driver.js';
import { SqliteStore } from './sqlite-store.js';
import type { StoredSession } from './store.js';

const session = (id: string, extra: Partial<StoredSession> = {}): StoredSession => ({
  sessionId: id,
  harness: 'codex',
  cwd: '/work',
  spec: { cwd: '/work' },
  state: 'open',
  generation: 0,
  createdAt: 100,
  updatedAt: 100,
  ...extra,
});
const event = (sessionId: string, seq: number): ReinsEvent => ({
  type: 'session.status',
  status: 'idle',
  seq,
  harness: 'codex',
  sessionId,
  turnId: null,
  at: seq,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-migrate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('are numbered 1..N with no gap', () => {
    expect(MIGRATIONS.map((migration) => migration.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('open a store made by the previous schema version, keeping its sessions and events', async () => {
    const path = join(dir, 'reins.db');
    const previous = SCHEMA_VERSION - 1;
    const old = await SqliteStore.open(path, { schemaVersion: previous });
    await old.putSession(session('a', { nativeSessionId: 'n-1' }));
    await old.appendEvents('a', [event('a', 1), event('a', 2)]);
    // What the previous version could not store, it does not have.
    expect(await old.openProcessGroups()).toEqual([]);
    await old.close();
    const raw = openSqlite(path);
    expect(raw.pragmaValue('user_version')).toBe(previous);
    raw.close();

    const store = await SqliteStore.open(path);
    expect((await store.loadSessions())[0]).toMatchObject({ sessionId: 'a', nativeSessionId: 'n-1', lastSeq: 2 });
    expect((await store.readEvents('a', 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
    // What the new version adds works on the migrated file.
    await store.recordProcessGroup({ id: 'x', pgid: 5, pid: 5, label: 'fake', startedAt: 1 });
    expect((await store.openProcessGroups()).map((group) => group.id)).toEqual(['x']);
    await store.putSession(session('b', { hadBaseEnv: true }));
    expect((await store.loadSessions()).find((entry) => entry.sessionId === 'b')?.hadBaseEnv).toBe(true);
    await store.close();
    const check = openSqlite(path);
    expect(check.pragmaValue('user_version')).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('refuse a store from a newer Reins, saying what to do', async () => {
    const path = join(dir, 'reins.db');
    const raw = openSqlite(path);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const error = await SqliteStore.open(path).then(
      () => undefined,
      (reason: unknown) => reason as Error,
    );
    expect(error).toMatchObject({ code: 'invalid_input' });
    expect(error?.message).toMatch(/newer than this Reins knows.*run the newer Reins/);
  });
});
