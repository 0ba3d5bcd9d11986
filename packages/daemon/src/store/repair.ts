// `reins daemon --repair`: salvages what still reads from a damaged store into a new one at the
// same path, and keeps the damaged file beside it (`reins.db.damaged-<time>`, with its -wal). Rows
// are read in rowid pages and, around a page that does not read, one rowid at a time; an event
// whose text is not JSON, or that belongs to a session whose record is lost, is left out; every seq
// a kept session lost becomes an `error` event naming the lost run, so its log has no gap, and a
// turn whose terminal was lost ends failed after the newest event (docs/architecture/daemon.md,
// "A damaged store").
import { existsSync, renameSync } from 'node:fs';
import { type EventPayload, ReinsError, type ReinsEvent } from '@reins/core';
import { CrashedTurn } from '../daemon-events.js';
import { isBusy, openSqlite, type SqliteDatabase } from './sqlite-driver.js';
import { safely } from './sqlite-rows.js';
import { SqliteStore } from './sqlite-store.js';
import { lockStore } from './store-lock.js';

export interface RepairReport {
  /** Where the damaged file (and its -wal) now is. */
  damagedCopy: string;
  sessions: number;
  /** Session rows that did not read (their events are left out too). */
  lostSessions: number;
  events: number;
  /** Seqs of kept sessions that did not read: each is an `error` event in the new store. */
  lostEvents: number;
  /** Events that read but whose session record did not. */
  orphanEvents: number;
}

const PAGE = 1_000;
/** Rowids tried one by one past a page that does not read, when the table's end is unknown (its root is damaged). */
const BLIND_SCAN = 5_000;

type Row = Record<string, unknown>;

/** Reads `table` row by row where it can: in pages, and one rowid at a time around damage. */
function* salvageRows(db: SqliteDatabase, table: string, columns: string): Generator<Row> {
  const page = db.prepare(`SELECT rowid AS rid, ${columns} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`);
  const one = db.prepare(`SELECT rowid AS rid, ${columns} FROM ${table} WHERE rowid = ?`);
  const newest = safely(() => Number((db.prepare(`SELECT MAX(rowid) AS rid FROM ${table}`).get() as Row).rid ?? 0));
  let after = 0;
  for (;;) {
    const rows = safely(() => page.all(after) as Row[]);
    if (rows) {
      if (rows.length === 0) return;
      for (const row of rows) yield row;
      after = Number((rows.at(-1) as Row).rid);
      continue;
    }
    // This page does not read: step over it one rowid at a time until a row reads again.
    const end = newest ?? after + BLIND_SCAN;
    let found = false;
    for (let rowid = after + 1; rowid <= end && !found; rowid++) {
      const row = safely(() => one.get(rowid) as Row | undefined);
      after = rowid;
      if (row) {
        yield row;
        found = true;
      }
    }
    if (!found) return;
  }
}

function columnsOf(db: SqliteDatabase, table: string): string[] {
  return (safely(() => db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>) ?? []).map(
    (column) => column.name,
  );
}

function parsed(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The turns of each kept session whose terminal did not read: their open items and the turn end failed. */
class OpenTurns {
  private readonly bySession = new Map<number, Map<string, CrashedTurn>>();

  observe(sessionNo: number, event: ReinsEvent): void {
    const turns = this.bySession.get(sessionNo) ?? new Map<string, CrashedTurn>();
    this.bySession.set(sessionNo, turns);
    if (event.type === 'turn.started' && event.turnId !== null) {
      turns.set(event.turnId, new CrashedTurn({ turnId: event.turnId, seq: event.seq }));
    }
    if (event.turnId === null) return;
    turns.get(event.turnId)?.observe(event);
    if (event.type === 'turn.completed') turns.delete(event.turnId);
  }

  closing(sessionNo: number): Array<{ payload: EventPayload; turnId: string }> {
    const error = {
      code: 'store_unavailable' as const,
      message: 'The rest of this turn could not be read from a damaged store and was lost when it was repaired.',
    };
    return [...(this.bySession.get(sessionNo)?.values() ?? [])].flatMap((turn) =>
      turn.closing(error).map((payload) => ({ payload, turnId: turn.open.turnId })),
    );
  }
}

function lostEvent(session: Row, seq: number, from: number, to: number, at: number): string {
  const range = from === to ? `Event ${from}` : `Events ${from}-${to}`;
  return JSON.stringify({
    type: 'error',
    code: 'store_unavailable',
    message: `${range} of this session could not be read from a damaged store and ${from === to ? 'was' : 'were'} lost when it was repaired; the rest of the log was kept.`,
    fatal: false,
    data: { damaged: { from, to }, repaired: at },
    seq,
    harness: session.harness,
    sessionId: session.session_id,
    turnId: null,
    at,
  });
}

/** Moves the damaged store at `location` aside and writes what reads from it into a new one there. */
export async function repairStore(location: string): Promise<RepairReport> {
  if (!existsSync(location)) {
    throw new ReinsError('invalid_input', `There is no Reins store at ${location} to repair.`, { data: { location } });
  }
  refuseIfInUse(location);
  const damagedCopy = `${location}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(location, damagedCopy);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(location + suffix)) renameSync(location + suffix, damagedCopy + suffix);
  }
  await (await SqliteStore.open(location, { quickCheckMaxBytes: 0 })).close();
  const target = openSqlite(location);
  const source = safely(() => openSqlite(damagedCopy));
  const report: RepairReport = { damagedCopy, sessions: 0, lostSessions: 0, events: 0, lostEvents: 0, orphanEvents: 0 };
  try {
    if (source) target.transaction(() => copy(source, target, report));
  } finally {
    safely(() => source?.close());
    target.close();
  }
  return report;
}

/** A daemon holds the store's lock for its whole life: repairing under it would lose its writes. */
function refuseIfInUse(location: string): void {
  try {
    lockStore(location).release();
  } catch (error) {
    if (!ReinsError.isInstance(error)) throw error;
    throw new ReinsError('invalid_input', `The Reins store ${location} is in use: stop its daemon, then repair it.`, {
      data: { location, reason: 'locked' },
    });
  }
  // And the file's own lock, which a Reins from before store-lock.ts holds.
  const probe = openSqlite(location);
  try {
    probe.exec('PRAGMA locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    if (isBusy(error)) {
      throw new ReinsError('invalid_input', `The Reins store ${location} is in use: stop its daemon, then repair it.`, {
        data: { location, reason: 'locked' },
      });
    }
    // Damage that stops even this: nothing holds the file, go on.
  } finally {
    safely(() => probe.close());
  }
}

function copy(source: SqliteDatabase, target: SqliteDatabase, report: RepairReport): void {
  // Only the columns both schemas have (a damaged store may be of an older schema version).
  const shared = (table: string) => {
    const present = new Set(columnsOf(source, table));
    return columnsOf(target, table).filter((column) => present.has(column));
  };
  const sessionColumns = shared('sessions');
  const sessions = new Map<number, Row>();
  if (sessionColumns.includes('session_no') && sessionColumns.includes('spec')) {
    const insert = target.prepare(
      `INSERT OR IGNORE INTO sessions (${sessionColumns.join(', ')}) VALUES (${sessionColumns.map(() => '?').join(', ')})`,
    );
    for (const row of salvageRows(source, 'sessions', sessionColumns.join(', '))) {
      if (parsed(row.spec) === undefined) {
        report.lostSessions++;
        continue;
      }
      insert.run(...sessionColumns.map((column) => row[column] ?? null));
      sessions.set(Number(row.session_no), row);
    }
  }
  report.sessions = sessions.size;
  const seqs = new Map<number, Set<number>>();
  const openTurns = new OpenTurns();
  const insertEvent = target.prepare('INSERT OR IGNORE INTO events (session_no, seq, type, body) VALUES (?, ?, ?, ?)');
  if (columnsOf(source, 'events').length > 0) {
    for (const row of salvageRows(source, 'events', 'session_no, seq, type, body')) {
      const sessionNo = Number(row.session_no);
      if (!sessions.has(sessionNo)) {
        report.orphanEvents++;
        continue;
      }
      const event = parsed(row.body) as ReinsEvent | undefined;
      if (event === undefined) continue;
      insertEvent.run(sessionNo, Number(row.seq), row.type, row.body);
      if (typeof event === 'object' && event !== null) openTurns.observe(sessionNo, event);
      const kept = seqs.get(sessionNo) ?? new Set<number>();
      kept.add(Number(row.seq));
      seqs.set(sessionNo, kept);
      report.events++;
    }
  }
  report.lostEvents = fillGaps(sessions, seqs, insertEvent);
  endOpenTurns(sessions, seqs, openTurns, insertEvent);
  const groupColumns = shared('process_groups');
  if (groupColumns.includes('ended_at')) {
    const insert = target.prepare(
      `INSERT OR IGNORE INTO process_groups (${groupColumns.join(', ')}) VALUES (${groupColumns.map(() => '?').join(', ')})`,
    );
    for (const row of salvageRows(source, 'process_groups', groupColumns.join(', '))) {
      insert.run(...groupColumns.map((column) => row[column] ?? null));
    }
  }
}

/** A turn whose terminal was lost ends after the session's newest event, so every turn keeps one terminal. */
function endOpenTurns(
  sessions: Map<number, Row>,
  seqs: Map<number, Set<number>>,
  openTurns: OpenTurns,
  insertEvent: { run(...params: unknown[]): unknown },
): void {
  const at = Date.now();
  for (const [sessionNo, session] of sessions) {
    let seq = 0;
    for (const kept of seqs.get(sessionNo) ?? []) seq = Math.max(seq, kept);
    for (const { payload, turnId } of openTurns.closing(sessionNo)) {
      const event = { ...payload, seq: ++seq, harness: session.harness, sessionId: session.session_id, turnId, at };
      insertEvent.run(sessionNo, seq, payload.type, JSON.stringify(event));
    }
  }
}

/** Each seq a kept session lost (up to its newest kept one) becomes an error naming its run. */
function fillGaps(
  sessions: Map<number, Row>,
  seqs: Map<number, Set<number>>,
  insertEvent: { run(...params: unknown[]): unknown },
): number {
  const at = Date.now();
  let lost = 0;
  for (const [sessionNo, session] of sessions) {
    const kept = seqs.get(sessionNo) ?? new Set<number>();
    let newest = 0;
    for (const seq of kept) newest = Math.max(newest, seq);
    for (let seq = 1; seq <= newest; seq++) {
      if (kept.has(seq)) continue;
      let to = seq;
      while (to + 1 <= newest && !kept.has(to + 1)) to++;
      for (let missing = seq; missing <= to; missing++) {
        insertEvent.run(sessionNo, missing, 'error', lostEvent(session, missing, seq, to, at));
        lost++;
      }
      seq = to;
    }
  }
  return lost;
}
