// Which process owns a store: SQLite's EXCLUSIVE lock on `<store>.lock`, held for the store's life
// (the OS drops it when the process dies), so a second daemon on the same home refuses to start.
// The store's own file cannot hold it any more: its WAL is checkpointed on a second connection
// (wal-checkpointer.ts), which an EXCLUSIVE lock on the file would shut out.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { ReinsError } from '@reins/core';
import { isBusy, openSqlite, type SqliteDatabase } from './sqlite-driver.js';

export interface StoreLock {
  release(): void;
}

/** Another process holds the store (data.reason 'locked': the daemon then names the one in daemon.json). */
export function storeInUseError(location: string, cause: unknown): ReinsError {
  return new ReinsError('invalid_input', `The Reins store ${location} is in use by another process.`, {
    cause,
    data: { location, reason: 'locked' },
  });
}

/**
 * Takes the lock of the store at `location`; invalid_input (data.reason 'locked') when another holds
 * it, any other failure (a full disk) as `otherwise` says.
 */
export function lockStore(location: string, otherwise: (error: unknown) => unknown = (error) => error): StoreLock {
  const path = `${location}.lock`;
  let db: SqliteDatabase | undefined;
  try {
    if (!existsSync(path)) {
      closeSync(openSync(path, 'a', 0o600));
      chmodSync(path, 0o600);
    }
    db = openSqlite(path);
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db?.close();
    if (isBusy(error)) throw storeInUseError(location, error);
    throw otherwise(error);
  }
  const held = db;
  return { release: () => held.close() };
}
