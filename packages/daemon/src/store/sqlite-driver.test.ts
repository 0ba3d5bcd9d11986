// SQLite failures are told apart by their structured fields in both bindings (better-sqlite3's
// `code` name, node:sqlite's `errcode` number, extended codes included), never by message text.
import { describe, expect, it } from 'vitest';
import { sqliteFailure } from './sqlite-driver.js';

describe('sqliteFailure', () => {
  it('reads better-sqlite3 code names and node:sqlite errcode numbers alike', () => {
    expect(sqliteFailure({ code: 'SQLITE_FULL' })).toBe('full');
    expect(sqliteFailure({ code: 'SQLITE_IOERR_WRITE' })).toBe('io');
    expect(sqliteFailure({ code: 'SQLITE_CORRUPT' })).toBe('corrupt');
    expect(sqliteFailure({ code: 'SQLITE_NOTADB' })).toBe('not_a_database');
    expect(sqliteFailure({ code: 'SQLITE_BUSY' })).toBe('busy');
    expect(sqliteFailure({ code: 'ERR_SQLITE_ERROR', errcode: 13 })).toBe('full');
    // SQLITE_IOERR_WRITE = 778: the primary code is its low byte.
    expect(sqliteFailure({ code: 'ERR_SQLITE_ERROR', errcode: 778 })).toBe('io');
    expect(sqliteFailure({ code: 'ERR_SQLITE_ERROR', errcode: 26 })).toBe('not_a_database');
    // The WAL index that cannot grow (SQLITE_IOERR_SHMSIZE = 4874): a full disk, not an I/O fault.
    expect(sqliteFailure({ code: 'SQLITE_IOERR_SHMSIZE' })).toBe('full');
    expect(sqliteFailure({ code: 'ERR_SQLITE_ERROR', errcode: 4874 })).toBe('full');
    expect(sqliteFailure({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe('other');
    expect(sqliteFailure(new Error('database or disk is full'))).toBe('other');
    expect(sqliteFailure(undefined)).toBe('other');
  });
});
