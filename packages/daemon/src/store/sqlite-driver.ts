// The one SQLite connection type the store uses, over whichever SQLite the running Node has:
// - Node >= 22.13 ships `node:sqlite` (DatabaseSync): used there, no native addon to build or load.
// - Node 20 has none: better-sqlite3 12.11.1 (13.x crashes on Node 20).
// better-sqlite3 12.11.1 must not be loaded on Node 24: it aborts in Statement::~Statement
// ("Assertion failed: (env) != nullptr", Node 24.21.0, nodejs/node#65446). So the addon is required
// lazily, and only where node:sqlite is missing.
import { createRequire } from 'node:module';

export type SqliteValue = string | number | bigint | null | Uint8Array;

export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  /** Which SQLite binding this is, for logs and tests. */
  readonly driver: 'node:sqlite' | 'better-sqlite3';
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** `PRAGMA <name>` read as one value. */
  pragmaValue(name: string): unknown;
  /** Runs `work` in one transaction (BEGIN ... COMMIT, ROLLBACK when it throws). Not reentrant. */
  transaction<T>(work: () => T): T;
  close(): void;
}

const require = createRequire(import.meta.url);

interface NodeSqlite {
  DatabaseSync: new (
    location: string,
    options?: { timeout?: number },
  ) => {
    exec(sql: string): void;
    prepare(sql: string): SqliteStatement;
    close(): void;
  };
}

function nodeSqlite(): NodeSqlite | undefined {
  try {
    return require('node:sqlite') as NodeSqlite;
  } catch {
    return undefined;
  }
}

/** Opens `location` with the binding this Node has; errors carry SQLite's `code` (SQLITE_BUSY, ...). */
export function openSqlite(location: string, prefer?: SqliteDatabase['driver']): SqliteDatabase {
  const builtin = prefer === 'better-sqlite3' ? undefined : nodeSqlite();
  if (builtin) {
    const db = new builtin.DatabaseSync(location, { timeout: 0 });
    return wrap('node:sqlite', db, (name) => {
      const row = db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined;
      return row ? Object.values(row)[0] : undefined;
    });
  }
  const Database = require('better-sqlite3') as new (
    location: string,
    options?: { timeout?: number },
  ) => {
    exec(sql: string): void;
    prepare(sql: string): SqliteStatement;
    pragma(text: string, options?: { simple?: boolean }): unknown;
    close(): void;
  };
  const db = new Database(location, { timeout: 0 });
  return wrap('better-sqlite3', db, (name) => db.pragma(name, { simple: true }));
}

function wrap(
  driver: SqliteDatabase['driver'],
  db: { exec(sql: string): void; prepare(sql: string): SqliteStatement; close(): void },
  pragmaValue: (name: string) => unknown,
): SqliteDatabase {
  // BEGIN and COMMIT as prepared statements: the store commits once per event-loop turn, and exec()
  // parsed both texts again every time (a few µs per commit in the daemon's profile).
  let begin: SqliteStatement | undefined;
  let commit: SqliteStatement | undefined;
  return {
    driver,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    pragmaValue,
    transaction<T>(work: () => T): T {
      begin ??= db.prepare('BEGIN');
      commit ??= db.prepare('COMMIT');
      begin.run();
      try {
        const result = work();
        commit.run();
        return result;
      } catch (error) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // the transaction is already gone (SQLite rolled it back itself)
        }
        throw error;
      }
    },
    close: () => db.close(),
  };
}

/** SQLite said the database is locked by another connection (SQLITE_BUSY), in either binding's words. */
export function isBusy(error: unknown): boolean {
  const fields = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  return fields?.code === 'SQLITE_BUSY' || fields?.errcode === 5 || /database is locked/i.test(String(fields?.message));
}

/** What kind of failure a SQLite error is, from either binding's structured fields (never its text alone). */
export type SqliteFailure = 'full' | 'io' | 'corrupt' | 'not_a_database' | 'busy' | 'other';

// Primary result codes (sqlite.org/rescode.html): the low byte of an extended code.
const PRIMARY_CODES: Record<number, SqliteFailure> = {
  5: 'busy',
  10: 'io',
  11: 'corrupt',
  13: 'full',
  26: 'not_a_database',
};
const CODE_NAMES: Record<string, SqliteFailure> = {
  SQLITE_BUSY: 'busy',
  SQLITE_IOERR: 'io',
  SQLITE_CORRUPT: 'corrupt',
  SQLITE_FULL: 'full',
  SQLITE_NOTADB: 'not_a_database',
};

// SQLITE_IOERR_SHMSIZE: the WAL index (-shm) could not grow, which on a local disk means it is full.
const SHMSIZE = { code: 'SQLITE_IOERR_SHMSIZE', errcode: 10 | (19 << 8) };

export function sqliteFailure(error: unknown): SqliteFailure {
  const fields = error as { code?: unknown; errcode?: unknown } | null;
  if (fields?.code === SHMSIZE.code || fields?.errcode === SHMSIZE.errcode) return 'full';
  // node:sqlite: errcode is the (extended) number; better-sqlite3: code is the (extended) name.
  if (typeof fields?.errcode === 'number') return PRIMARY_CODES[fields.errcode & 0xff] ?? 'other';
  if (typeof fields?.code === 'string') {
    const primary = /^SQLITE_[A-Z]+/.exec(fields.code)?.[0];
    if (primary !== undefined) return CODE_NAMES[primary] ?? 'other';
  }
  return 'other';
}
