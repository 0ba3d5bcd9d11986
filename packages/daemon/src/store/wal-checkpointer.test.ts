// The WAL's checkpoints on their own thread (wal-checkpointer.ts): they run there and not in the
// writer's commits, the WAL starts over once it passes its bound, and a thread that dies or a
// checkpoint that fails is told, moves checkpoints back to the writer and loses no event.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from './sqlite-driver.js';
import { SqliteStore } from './sqlite-store.js';
import { CHECKPOINT_EVERY, WalCheckpointer } from './wal-checkpointer.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-checkpoints-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function event(seq: number): ReinsEvent {
  return {
    type: 'item.delta',
    seq,
    harness: 'codex',
    sessionId: 's',
    turnId: 't',
    at: seq,
    itemId: 'i',
    kind: 'text',
    text: `token ${seq} `.repeat(40),
  } as ReinsEvent;
}

/** Appends `count` events after `from`, one commit each (each awaited). */
async function appendCommits(store: SqliteStore, from: number, count: number): Promise<void> {
  for (let seq = from + 1; seq <= from + count; seq++) await store.appendEvents('s', [event(seq)]);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1_000 && !condition(); attempt++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`never: ${what}`);
}

const inside = (store: SqliteStore) =>
  store as unknown as {
    db: SqliteDatabase;
    checkpointer: { completed: number; running: boolean; thread?: { terminate(): Promise<number> } };
  };

async function openWithSession(location: string, warnings: string[] = []): Promise<SqliteStore> {
  const store = await SqliteStore.open(location, { warn: (message) => warnings.push(message) });
  await store.putSession({
    sessionId: 's',
    harness: 'codex',
    cwd: '/w',
    spec: { cwd: '/w' },
    state: 'open',
    generation: 0,
    createdAt: 0,
    updatedAt: 0,
  });
  return store;
}

describe('WAL checkpoints on a thread', () => {
  it("run on the thread, never in the writer's commit, and every event reads after reopening", async () => {
    const location = join(dir, 'reins.db');
    const store = await openWithSession(location);
    const { db, checkpointer } = inside(store);
    expect(db.pragmaValue('wal_autocheckpoint')).toBe(0);
    const before = (await stat(location)).size;
    await appendCommits(store, 0, CHECKPOINT_EVERY + 10);
    await until(() => checkpointer.completed > 0, 'a checkpoint on the thread');
    // The thread copied committed pages from the WAL into the database file.
    expect((await stat(location)).size).toBeGreaterThan(before);
    await store.close();
    const again = await SqliteStore.open(location);
    expect((await again.readEvents('s', 0, 1_000)).map((e) => e.seq)).toEqual(
      Array.from({ length: CHECKPOINT_EVERY + 10 }, (_, i) => i + 1),
    );
    await again.close();
  });

  it('starts the WAL over once it passes its bound: the writer catches up after the thread', async () => {
    const location = join(dir, 'bound.db');
    const writer = openSqlite(location);
    writer.exec('PRAGMA journal_mode = WAL');
    writer.exec('CREATE TABLE t (body TEXT)');
    const bound = 64 * 1024;
    const checkpointer = new WalCheckpointer(writer, location, () => {}, bound);
    const insert = writer.prepare('INSERT INTO t (body) VALUES (?)');
    const commit = () => {
      writer.transaction(() => insert.run('x'.repeat(3_000)));
      checkpointer.committed();
    };
    // Without its bound the WAL only grows: the thread's checkpoints alone never let it start over.
    for (let index = 0; index < CHECKPOINT_EVERY; index++) commit();
    await until(() => checkpointer.completed > 0, "the thread's checkpoint");
    commit();
    await until(() => checkpointer.catchUps > 0, "the writer's catch-up");
    commit();
    // journal_size_limit cut the restarted WAL back to the bound.
    expect((await stat(`${location}-wal`)).size).toBeLessThanOrEqual(bound);
    expect((writer.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(CHECKPOINT_EVERY + 2);
    await checkpointer.close();
    writer.close();
  });

  it('a thread that dies: the store says so, SQLite checkpoints on the writer again, nothing is lost', async () => {
    const location = join(dir, 'reins.db');
    const warnings: string[] = [];
    const store = await openWithSession(location, warnings);
    await appendCommits(store, 0, 10);
    const { db, checkpointer } = inside(store);
    await checkpointer.thread?.terminate();
    await until(() => warnings.length > 0, 'the warning');
    expect(warnings).toEqual([expect.stringMatching(/checkpoint thread ended .*nothing was lost/)]);
    expect(checkpointer.running).toBe(false);
    expect(db.pragmaValue('wal_autocheckpoint')).toBe(1_000);
    await appendCommits(store, 10, 100);
    await store.close();
    const again = await SqliteStore.open(location);
    expect((await again.readEvents('s', 0, 1_000)).map((e) => e.seq)).toEqual(
      Array.from({ length: 110 }, (_, i) => i + 1),
    );
    await again.close();
  });

  it('a checkpoint that fails is told and checkpoints move back to the writer', async () => {
    const location = join(dir, 'writer.db');
    const writer = openSqlite(location);
    writer.exec('PRAGMA journal_mode = WAL');
    // The thread's connection opens a file that is no database: its checkpoint fails (SQLITE_NOTADB).
    const other = join(dir, 'not-a-database');
    await writeFile(other, 'this is not SQLite '.repeat(400));
    const warnings: string[] = [];
    const checkpointer = new WalCheckpointer(writer, other, (message) => warnings.push(message));
    for (let index = 0; index < CHECKPOINT_EVERY; index++) checkpointer.committed();
    await until(() => warnings.length > 0, 'the warning');
    expect(warnings).toEqual([expect.stringMatching(/a checkpoint failed \(.+\).*nothing was lost/)]);
    expect(checkpointer.running).toBe(false);
    expect(writer.pragmaValue('wal_autocheckpoint')).toBe(1_000);
    await checkpointer.close();
    writer.close();
  });
});
