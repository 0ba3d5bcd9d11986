// A write's events go into SQLite as INSERTs of up to ROWS_PER_INSERT rows: one statement call per 16
// events rather than per event, 15-19% less of the store's CPU per event where a write holds several
// (a harness's burst; the fan-out bench's writes hold 20-27), with the same rows in the same
// transaction (docs/architecture/daemon.md, "The store").
import type { ReinsEvent } from '@reins/core';
import type { SqliteDatabase, SqliteStatement, SqliteValue } from './sqlite-driver.js';

const ROWS_PER_INSERT = 16;

export class EventInserts {
  /** By row count (index n: n rows), prepared on first use. */
  private readonly statements: SqliteStatement[] = [];

  constructor(private readonly db: SqliteDatabase) {}

  /** Inserts `events` of session `sessionNo` in order, each as `serialized[i]` where given. */
  run(sessionNo: number, events: readonly ReinsEvent[], serialized?: readonly string[]): void {
    for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
      const end = Math.min(events.length, start + ROWS_PER_INSERT);
      const values: SqliteValue[] = [];
      for (let index = start; index < end; index++) {
        const event = events[index] as ReinsEvent;
        values.push(sessionNo, event.seq, event.type, serialized?.[index] ?? JSON.stringify(event));
      }
      this.statement(end - start).run(...values);
    }
  }

  /** An INSERT of `rows` events. */
  statement(rows: number): SqliteStatement {
    let statement = this.statements[rows];
    if (statement === undefined) {
      const row = '(?, ?, ?, ?)';
      statement = this.db.prepare(
        `INSERT INTO events (session_no, seq, type, body) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
      );
      this.statements[rows] = statement;
    }
    return statement;
  }
}
