// The embedded store: $REINS_HOME/reins.db, SQLite in WAL mode (node:sqlite where Node has it,
// better-sqlite3 12.11.1 on Node 20: sqlite-driver.ts). Every write made in one turn of the event loop goes into ONE
// transaction, committed on setImmediate, and each write's promise resolves after that commit:
// the daemon's "write before fan-out" costs one commit per loop turn, not one per event. With
// synchronous=NORMAL a commit survives the daemon crashing (SIGKILL, OOM); an OS crash or power
// cut may lose the last commits (`synchronous: 'full'` closes that, at an fsync per commit).
//
// The WAL is checkpointed on a thread of its own (wal-checkpointer.ts): SQLite's automatic checkpoint
// ran inside the COMMIT, on the event loop, and its fsync was the daemon's longest stall.
//
// The store holds SQLite's EXCLUSIVE lock on `<store>.lock` for its whole life (store-lock.ts), so a
// second daemon on the same home cannot open the store: that lock, which the OS drops when a process
// dies, is what tells a live daemon from a stale daemon.json. The file is created 0600 (it holds
// prompts and specs).
//
// A damaged file is refused at open with the fix (integrity.ts): SQLite's quick_check runs first
// (stores up to quickCheckMaxBytes), and a row that does not read later is handed back marked.
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import type { ReinsEvent } from '@reins/core';
import { ReinsError } from '@reins/core';
import { EventInserts } from './event-inserts.js';
import { damagedStoreError, isDamage, missingTables, quickCheck } from './integrity.js';
import { migrate } from './migrations.js';
import { isBusy, openSqlite, type SqliteDatabase, type SqliteStatement, sqliteFailure } from './sqlite-driver.js';
import {
  type EventTextRow,
  eventText,
  type GroupRow,
  groupRecord,
  loadedSession,
  type SessionRow,
  safely,
} from './sqlite-rows.js';
import type {
  DaemonStore,
  LoadedSession,
  ProcessGroupRecord,
  SessionPatch,
  StoredEventText,
  StoredSession,
} from './store.js';
import { lockStore, type StoreLock, storeInUseError } from './store-lock.js';
import { noRoomToStartError, storeUnavailableError } from './unavailable.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export interface SqliteStoreOptions {
  /** 'normal' (default): durable across a daemon crash. 'full': also across an OS crash (fsync per commit). */
  synchronous?: 'normal' | 'full';
  /** Migrate only up to this schema version (tests make stores of an older schema). */
  schemaVersion?: number;
  /** Force a SQLite binding (tests run the store on both where the runtime has both). */
  driver?: SqliteDatabase['driver'];
  /**
   * quick_check at open only up to this many bytes of file and WAL (default 64 MiB: 0.2-0.8 s
   * per 100k events / 39 MB measured at load 16, daemon.md); a larger store is checked when a read
   * finds damage. 0: never at open.
   */
  quickCheckMaxBytes?: number;
  /** Checkpoint the WAL on a thread (default true); false: SQLite's automatic checkpoint on the writer. */
  checkpointThread?: boolean;
  /** Told when the checkpoint thread fails and checkpoints move back to the writer (default: a process warning). */
  warn?: (message: string) => void;
}

const DEFAULT_QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** A write the disk refused (full, I/O error) is store_unavailable with the fix; others as they are. */
function refusal(location: string, error: unknown): unknown {
  const failure = sqliteFailure(error);
  return failure === 'full' || failure === 'io' ? storeUnavailableError(location, error) : error;
}

/** Why the store did not open: a full disk in the sentence that says what to do, else SQLite's message. */
function cannotOpen(location: string, error: unknown): ReinsError {
  return (
    noRoomToStartError(location, error) ??
    new ReinsError('invalid_input', `Cannot open the Reins store ${location}: ${(error as Error).message}`, {
      cause: error,
      data: { location },
    })
  );
}

function storeBytes(location: string): number {
  const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  return size(location) + size(`${location}-wal`);
}

interface PendingWrite {
  run: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const PATCH_COLUMNS: Record<keyof SessionPatch, string> = {
  spec: 'spec',
  nativeSessionId: 'native_session_id',
  title: 'title',
  model: 'model',
  effort: 'effort',
  state: 'state',
  generation: 'generation',
  updatedAt: 'updated_at',
  closedAt: 'closed_at',
  openTurn: 'open_turn',
};

/** Creates the file with mode 0600 first, so SQLite (and its -wal file, which copies the mode) never makes it readable to others. */
function createPrivately(path: string): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

export class SqliteStore implements DaemonStore {
  private readonly db: SqliteDatabase;
  private readonly lock: StoreLock;
  private readonly checkpointer: WalCheckpointer | undefined;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly statements;
  /** Each session's number (the events table's compact key). */
  private readonly sessionNos = new Map<string, number>();
  private lastSessionNo = 0;
  /** Newest event time per session appended in the running transaction. */
  private readonly touched = new Map<string, number>();
  /** updateSession statements by the columns they set. */
  private readonly updates = new Map<string, SqliteStatement>();
  private readonly eventInserts: EventInserts;
  /** Schema 2's session columns exist (node:sqlite refuses named parameters a statement lacks). */
  private readonly schema2: boolean;
  /** PRAGMA user_version after migrating (checkWritable writes it again). */
  private readonly userVersion: number;
  /** What quick_check said once a read found damage. */
  private damage: string | undefined;

  private constructor(
    readonly location: string,
    options: SqliteStoreOptions,
  ) {
    createPrivately(location);
    this.lock = lockStore(location, (error) => cannotOpen(location, error));
    try {
      this.db = openSqlite(location, options.driver);
    } catch (error) {
      this.lock.release();
      if (isDamage(error)) throw damagedStoreError(location, (error as Error).message, 'invalid_input', error);
      throw cannotOpen(location, error);
    }
    try {
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Busy at once when a Reins from before store-lock.ts holds the file's EXCLUSIVE lock.
      this.db.exec('BEGIN EXCLUSIVE; COMMIT');
      // Only the checkpoint thread shares the file now; a rare wait on it beats a failed commit.
      this.db.exec('PRAGMA busy_timeout = 1000');
    } catch (error) {
      this.db.close();
      this.lock.release();
      if (isDamage(error)) throw damagedStoreError(location, (error as Error).message, 'invalid_input', error);
      if (isBusy(error)) throw storeInUseError(location, error);
      throw cannotOpen(location, error);
    }
    for (const suffix of ['-wal', '-shm']) {
      if (existsSync(location + suffix)) chmodSync(location + suffix, 0o600);
    }
    try {
      migrate(this.db, location, options.schemaVersion);
      this.userVersion = Number(this.db.pragmaValue('user_version'));
      const missing = missingTables(this.db, this.userVersion);
      if (missing.length > 0) {
        throw damagedStoreError(
          location,
          `its ${missing.join(' and ')} table${missing.length > 1 ? 's are' : ' is'} missing`,
        );
      }
      if (storeBytes(location) <= (options.quickCheckMaxBytes ?? DEFAULT_QUICK_CHECK_MAX_BYTES)) {
        const finding = quickCheck(this.db);
        if (finding !== undefined) throw damagedStoreError(location, `SQLite's quick_check: ${finding}`);
      }
      this.statements = this.prepare(options.schemaVersion);
      this.eventInserts = new EventInserts(this.db);
      this.schema2 = options.schemaVersion === undefined || options.schemaVersion >= 2;
      for (const row of this.statements.sessionNumbers.all() as Array<{ session_id: string; session_no: number }>) {
        this.sessionNos.set(row.session_id, row.session_no);
        this.lastSessionNo = Math.max(this.lastSessionNo, row.session_no);
      }
      this.checkpointer =
        options.checkpointThread === false
          ? undefined
          : new WalCheckpointer(this.db, location, options.warn ?? ((message) => process.emitWarning(message)));
    } catch (error) {
      this.db.close();
      this.lock.release();
      throw isDamage(error) ? damagedStoreError(location, (error as Error).message, 'invalid_input', error) : error;
    }
  }

  private sessionNo(sessionId: string): number {
    const number = this.sessionNos.get(sessionId);
    if (number === undefined) {
      throw new ReinsError('invalid_input', `The Reins store has no session ${sessionId} to append events to.`, {
        data: { sessionId },
      });
    }
    return number;
  }

  /** Opens (creating and migrating when needed) the store at `path`; refuses one another process holds. */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    return new SqliteStore(path, options);
  }

  private prepare(schemaVersion: number | undefined) {
    const db = this.db;
    const groups = schemaVersion === undefined || schemaVersion >= 2;
    // Schema 2 added had_base_env and open_turn (tests still open schema-1 stores).
    const baseEnv = groups
      ? {
          column: 'had_base_env, open_turn, ',
          value: '@hadBaseEnv, @openTurn, ',
          update: 'had_base_env = excluded.had_base_env, open_turn = excluded.open_turn, ',
        }
      : { column: '', value: '', update: '' };
    return {
      insertSession: db.prepare(
        `INSERT INTO sessions (session_no, session_id, harness, cwd, spec, harness_options, ${baseEnv.column}native_session_id, title, model, effort, state, generation, created_at, updated_at, closed_at)
         VALUES (@sessionNo, @sessionId, @harness, @cwd, @spec, @harnessOptions, ${baseEnv.value}@nativeSessionId, @title, @model, @effort, @state, @generation, @createdAt, @updatedAt, @closedAt)
         ON CONFLICT (session_id) DO UPDATE SET harness = excluded.harness, cwd = excluded.cwd, spec = excluded.spec,
           harness_options = excluded.harness_options, ${baseEnv.update}native_session_id = excluded.native_session_id,
           title = excluded.title, model = excluded.model, effort = excluded.effort, state = excluded.state,
           generation = excluded.generation, created_at = excluded.created_at, updated_at = excluded.updated_at,
           closed_at = excluded.closed_at`,
      ),
      loadSessions: db.prepare(
        `SELECT s.*, (SELECT MAX(seq) FROM events e WHERE e.session_no = s.session_no) AS last_seq
         FROM sessions s ORDER BY s.created_at, s.session_id`,
      ),
      sessionNumbers: db.prepare('SELECT session_id, session_no FROM sessions'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE session_id = ?'),
      deleteEvents: db.prepare('DELETE FROM events WHERE session_no = ?'),
      touchSession: db.prepare('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE session_id = ?'),
      // json_valid in SQLite: a damaged body is found without parsing every event in JS.
      readEventTexts: db.prepare(
        'SELECT seq, body, json_valid(body) AS valid FROM events WHERE session_no = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      readEventText: db.prepare(
        'SELECT seq, body, json_valid(body) AS valid FROM events WHERE session_no = ? AND seq = ?',
      ),
      lastSeq: db.prepare('SELECT MAX(seq) AS seq FROM events WHERE session_no = ?'),
      ...(groups
        ? {
            insertGroup: db.prepare(
              `INSERT OR REPLACE INTO process_groups (id, pgid, pid, start_ticks, boot_id, session_id, harness, label, started_at, ended_at)
               VALUES (@id, @pgid, @pid, @startTicks, @bootId, @sessionId, @harness, @label, @startedAt, @endedAt)`,
            ),
            endGroup: db.prepare('UPDATE process_groups SET ended_at = ? WHERE id = ? AND ended_at IS NULL'),
            openGroups: db.prepare('SELECT * FROM process_groups WHERE ended_at IS NULL ORDER BY started_at'),
          }
        : {}),
    };
  }

  // ---- writes (batched: one transaction per event-loop turn) -------------------------------------

  private write(run: () => void): Promise<void> {
    if (this.closed)
      return Promise.reject(new ReinsError('invalid_input', `The Reins store ${this.location} is closed.`));
    return new Promise((resolve, reject) => {
      this.pending.push({ run, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits every pending write in one transaction. If one of them fails the transaction rolls
   * back, and the writes are redone one transaction each, so that only the bad one fails.
   */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      this.db.transaction(() => {
        for (const write of batch) write.run();
        this.applyTouches();
      });
    } catch {
      this.touched.clear();
      for (const write of batch) {
        try {
          this.db.transaction(() => {
            write.run();
            this.applyTouches();
          });
          write.resolve();
        } catch (error) {
          this.touched.clear();
          write.reject(refusal(this.location, error));
        }
      }
      this.checkpointer?.committed();
      return;
    }
    for (const write of batch) write.resolve();
    this.checkpointer?.committed();
  }

  /** Sessions' updatedAt moves once per transaction, not once per append. */
  private applyTouches(): void {
    for (const [sessionId, at] of this.touched) this.statements.touchSession.run(at, sessionId);
    this.touched.clear();
  }

  putSession(session: StoredSession): Promise<void> {
    let sessionNo = this.sessionNos.get(session.sessionId);
    if (sessionNo === undefined) {
      sessionNo = ++this.lastSessionNo;
      this.sessionNos.set(session.sessionId, sessionNo);
    }
    const row = {
      sessionNo,
      sessionId: session.sessionId,
      harness: session.harness,
      cwd: session.cwd,
      spec: JSON.stringify(session.spec),
      harnessOptions: session.harnessOptions ? JSON.stringify(session.harnessOptions) : null,
      ...(this.schema2
        ? {
            hadBaseEnv: session.hadBaseEnv ? 1 : 0,
            openTurn: session.openTurn ? JSON.stringify(session.openTurn) : null,
          }
        : {}),
      nativeSessionId: session.nativeSessionId ?? null,
      title: session.title ?? null,
      model: session.model ?? null,
      effort: session.effort ?? null,
      state: session.state,
      generation: session.generation,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      closedAt: session.closedAt ?? null,
    };
    return this.write(() => this.statements.insertSession.run(row));
  }

  updateSession(sessionId: string, patch: SessionPatch): Promise<void> {
    const entries = Object.entries(patch).filter(([, value]) => value !== undefined) as Array<
      [keyof SessionPatch, unknown]
    >;
    const encode = (key: keyof SessionPatch, value: unknown) =>
      key === 'spec' || (key === 'openTurn' && value !== null) ? JSON.stringify(value) : value;
    if (entries.length === 0) return Promise.resolve();
    const sql = `UPDATE sessions SET ${entries.map(([key]) => `${PATCH_COLUMNS[key]} = ?`).join(', ')} WHERE session_id = ?`;
    const values = entries.map(([key, value]) => encode(key, value));
    return this.write(() => {
      let statement = this.updates.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.updates.set(sql, statement);
      }
      statement.run(...values, sessionId);
    });
  }

  deleteSession(sessionId: string): Promise<void> {
    const sessionNo = this.sessionNos.get(sessionId);
    this.sessionNos.delete(sessionId);
    return this.write(() => {
      if (sessionNo !== undefined) this.statements.deleteEvents.run(sessionNo);
      this.statements.deleteSession.run(sessionId);
    });
  }

  appendEvents(sessionId: string, events: readonly ReinsEvent[], serialized?: readonly string[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return this.write(() => {
      this.eventInserts.run(this.sessionNo(sessionId), events, serialized);
      const at = (events.at(-1) as ReinsEvent).at;
      this.touched.set(sessionId, Math.max(at, this.touched.get(sessionId) ?? at));
    });
  }

  /** Writes the schema version it already has: a real write (a WAL frame) that changes nothing. */
  checkWritable(): Promise<void> {
    return this.write(() => this.db.exec(`PRAGMA user_version = ${this.userVersion}`));
  }

  recordProcessGroup(group: ProcessGroupRecord): Promise<void> {
    const insert = this.statements.insertGroup;
    if (!insert) return Promise.resolve();
    return this.write(() =>
      insert.run({
        id: group.id,
        pgid: group.pgid,
        pid: group.pid,
        startTicks: group.startTicks ?? null,
        bootId: group.bootId ?? null,
        sessionId: group.sessionId ?? null,
        harness: group.harness ?? null,
        label: group.label,
        startedAt: group.startedAt,
        endedAt: group.endedAt ?? null,
      }),
    );
  }

  endProcessGroup(id: string, endedAt: number): Promise<void> {
    const end = this.statements.endGroup;
    if (!end) return Promise.resolve();
    return this.write(() => end.run(endedAt, id));
  }

  // ---- reads (see every write made before them) ------------------------------------------------

  async loadSessions(): Promise<LoadedSession[]> {
    this.flush();
    try {
      return this.loadSessionRows();
    } catch (error) {
      if (!isDamage(error) && !(error instanceof SyntaxError)) throw error;
      throw damagedStoreError(
        this.location,
        `its sessions do not read: ${(error as Error).message}`,
        'invalid_input',
        error,
      );
    }
  }

  private loadSessionRows(): LoadedSession[] {
    return (this.statements.loadSessions.all() as SessionRow[]).map(loadedSession);
  }

  /** Events that read (a damaged row is left out: readEventTexts says which). */
  async readEvents(sessionId: string, afterSeq: number, limit: number): Promise<ReinsEvent[]> {
    const texts = await this.readEventTexts(sessionId, afterSeq, limit);
    return texts.filter((text) => text.damaged === undefined).map((text) => JSON.parse(text.json) as ReinsEvent);
  }

  async readEventTexts(sessionId: string, afterSeq: number, limit: number): Promise<StoredEventText[]> {
    this.flush();
    const sessionNo = this.sessionNos.get(sessionId);
    if (sessionNo === undefined) return [];
    try {
      return (this.statements.readEventTexts.all(sessionNo, afterSeq, limit) as EventTextRow[]).map(eventText);
    } catch (error) {
      if (!isDamage(error)) throw error;
      return this.readAroundDamage(sessionNo, afterSeq, limit, error);
    }
  }

  /**
   * A page that fails to read on a damaged file: quick_check says what is wrong (once), then the
   * page is read one seq at a time, each row that fails marked with the finding.
   */
  private readAroundDamage(sessionNo: number, afterSeq: number, limit: number, error: unknown): StoredEventText[] {
    this.damage ??= safely(() => quickCheck(this.db)) ?? (error as Error).message;
    const newest = safely(() => Number((this.statements.lastSeq.get(sessionNo) as { seq: number | null }).seq ?? 0));
    const last = Math.min(afterSeq + limit, newest ?? afterSeq + limit);
    const texts: StoredEventText[] = [];
    for (let seq = afterSeq + 1; seq <= last; seq++) {
      try {
        const row = this.statements.readEventText.get(sessionNo, seq) as EventTextRow | undefined;
        texts.push(row ? eventText(row) : { seq, json: '', damaged: 'the row is missing' });
      } catch {
        texts.push({ seq, json: '', damaged: this.damage });
      }
    }
    return texts;
  }

  async openProcessGroups(): Promise<ProcessGroupRecord[]> {
    this.flush();
    const open = this.statements.openGroups;
    if (!open) return [];
    return (open.all() as GroupRow[]).map(groupRecord);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    await this.checkpointer?.close();
    // Closing the last connection checkpoints the WAL and removes it.
    this.db.close();
    this.lock.release();
  }
}
