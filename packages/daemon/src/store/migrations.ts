// The SQLite store's schema, as an append-only list of migrations: migration N takes a database at
// schema version N-1 (PRAGMA user_version) to N, inside one transaction. A released migration is
// never edited; a change is a new migration, and migrations.test.ts opens a store made by the
// previous version. A database newer than this build is refused rather than guessed at.

import { ReinsError } from '@reins/core';
import type { SqliteDatabase } from './sqlite-driver.js';

export interface Migration {
  version: number;
  /** What it adds, for the log. */
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions and their events',
    sql: `
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        session_no INTEGER NOT NULL UNIQUE,
        harness TEXT NOT NULL,
        cwd TEXT NOT NULL,
        spec TEXT NOT NULL,
        harness_options TEXT,
        native_session_id TEXT,
        title TEXT,
        model TEXT,
        effort TEXT,
        state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
        generation INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        closed_at INTEGER
      );
      -- Rows are appended in arrival order (rowid); the index finds a session's events by seq. Keyed
      -- by (session, seq) itself, concurrent sessions' rows would land on as many B-tree pages per
      -- commit: with 100 sessions streaming, that doubled the cost of an event.
      CREATE TABLE events (
        session_no INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE UNIQUE INDEX events_by_session ON events (session_no, seq);
    `,
  },
  {
    version: 2,
    description:
      'process groups the daemon started (reaped after a crash), the turn in progress, whether a client gave an environment',
    sql: `
      CREATE TABLE process_groups (
        id TEXT PRIMARY KEY,
        pgid INTEGER NOT NULL,
        pid INTEGER NOT NULL,
        start_ticks TEXT,
        boot_id TEXT,
        session_id TEXT,
        harness TEXT,
        label TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE INDEX process_groups_open ON process_groups (ended_at) WHERE ended_at IS NULL;
      ALTER TABLE sessions ADD COLUMN had_base_env INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN open_turn TEXT;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Brings `db` to `target` (default: the newest); returns the migrations it ran. */
export function migrate(db: SqliteDatabase, location: string, target = SCHEMA_VERSION): Migration[] {
  const current = Number(db.pragmaValue('user_version') ?? 0);
  if (current > SCHEMA_VERSION) {
    throw new ReinsError(
      'invalid_input',
      `The Reins store ${location} has schema version ${current}, newer than this Reins knows (${SCHEMA_VERSION}): run the newer Reins, or move the file away to start an empty store.`,
      { data: { location, version: current, known: SCHEMA_VERSION } },
    );
  }
  const pending = MIGRATIONS.filter((migration) => migration.version > current && migration.version <= target);
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    });
  }
  return pending;
}
