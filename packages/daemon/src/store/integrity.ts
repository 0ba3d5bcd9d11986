// Finding and naming a damaged SQLite store (docs/architecture/daemon.md, "A damaged store"): which
// failures are damage, SQLite's own quick_check, the tables a schema version must have, and the one
// sentence that names the damage and the two ways out (move the file aside, or --repair).
import { ReinsError } from '@reins/core';
import { type SqliteDatabase, sqliteFailure } from './sqlite-driver.js';

/** Tables each schema version has (migrations.ts). */
const TABLES_SINCE: ReadonlyArray<[table: string, version: number]> = [
  ['sessions', 1],
  ['events', 1],
  ['process_groups', 2],
];

/** SQLite says the file is damaged or is no database at all. */
export function isDamage(error: unknown): boolean {
  const failure = sqliteFailure(error);
  return failure === 'corrupt' || failure === 'not_a_database';
}

/** The damage named, with the fix: invalid_input at start (exit 2), store_unavailable while serving. */
export function damagedStoreError(
  location: string,
  what: string,
  code: 'invalid_input' | 'store_unavailable' = 'invalid_input',
  cause?: unknown,
): ReinsError {
  return new ReinsError(
    code,
    `The Reins store ${location} is damaged (${what}). To start with an empty store, stop the daemon and move the file aside (mv ${location} ${location}.damaged, and its -wal file if there is one); to keep what still reads, run \`reins daemon --repair\`: it copies every session and event that reads into a new store and keeps the damaged file beside it.`,
    {
      operation: 'store',
      data: { location, reason: 'damaged', damage: what },
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}

/** The tables `version` needs that the file lacks. */
export function missingTables(db: SqliteDatabase, version: number): string[] {
  const present = new Set(
    (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map(
      (row) => row.name,
    ),
  );
  return TABLES_SINCE.filter(([table, since]) => since <= version && !present.has(table)).map(([table]) => table);
}

/**
 * SQLite's quick_check (every page and B-tree, without matching indexes to rows): undefined when
 * it says ok, else its first findings. Linear in the file's size (daemon.md gives the figures).
 */
export function quickCheck(db: SqliteDatabase): string | undefined {
  let rows: Array<Record<string, unknown>>;
  try {
    rows = db.prepare('PRAGMA quick_check(5)').all() as Array<Record<string, unknown>>;
  } catch (error) {
    // Some damage stops the check itself: that is its finding.
    if (isDamage(error)) return (error as Error).message;
    throw error;
  }
  const findings = rows.map((row) => String(Object.values(row)[0]));
  if (findings.length === 1 && findings[0] === 'ok') return undefined;
  return findings.join('; ');
}
