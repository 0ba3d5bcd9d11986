// The SQLite store's rows as they come out of a query, and the records they stand for.
import type {
  LoadedSession,
  OpenTurn,
  ProcessGroupRecord,
  StoredEventText,
  StoredSession,
  StoredSessionState,
} from './store.js';

export interface SessionRow {
  session_id: string;
  harness: string;
  cwd: string;
  spec: string;
  harness_options: string | null;
  had_base_env: number;
  open_turn: string | null;
  native_session_id: string | null;
  title: string | null;
  model: string | null;
  effort: string | null;
  state: StoredSessionState;
  generation: number;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  last_seq: number | null;
}

export interface GroupRow {
  id: string;
  pgid: number;
  pid: number;
  start_ticks: string | null;
  boot_id: string | null;
  session_id: string | null;
  harness: string | null;
  label: string;
  started_at: number;
  ended_at: number | null;
}

export interface EventTextRow {
  seq: number;
  body: string;
  valid: number;
}

export function loadedSession(row: SessionRow): LoadedSession {
  return {
    sessionId: row.session_id,
    harness: row.harness as StoredSession['harness'],
    cwd: row.cwd,
    spec: JSON.parse(row.spec) as StoredSession['spec'],
    ...(row.harness_options ? { harnessOptions: JSON.parse(row.harness_options) as Record<string, unknown> } : {}),
    ...(row.had_base_env ? { hadBaseEnv: true } : {}),
    ...(row.open_turn ? { openTurn: JSON.parse(row.open_turn) as OpenTurn } : {}),
    ...(row.native_session_id !== null ? { nativeSessionId: row.native_session_id } : {}),
    ...(row.title !== null ? { title: row.title } : {}),
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.effort !== null ? { effort: row.effort as StoredSession['effort'] } : {}),
    state: row.state,
    generation: row.generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.closed_at !== null ? { closedAt: row.closed_at } : {}),
    lastSeq: row.last_seq ?? 0,
  };
}

export function groupRecord(row: GroupRow): ProcessGroupRecord {
  return {
    id: row.id,
    pgid: row.pgid,
    pid: row.pid,
    ...(row.start_ticks !== null ? { startTicks: row.start_ticks } : {}),
    ...(row.boot_id !== null ? { bootId: row.boot_id } : {}),
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    ...(row.harness !== null ? { harness: row.harness } : {}),
    label: row.label,
    startedAt: row.started_at,
  };
}

export function eventText(row: EventTextRow): StoredEventText {
  const seq = Number(row.seq);
  return row.valid ? { seq, json: row.body } : { seq, json: '', damaged: 'its text is not JSON' };
}

/** The value `read` returns, or undefined when it throws (reading around damage). */
export function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
