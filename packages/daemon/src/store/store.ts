// The daemon's storage interface: what it keeps so that sessions survive restarts and crashes
// (sessions, every event by (sessionId, seq), and the process groups it started). Narrow and
// async on purpose: the embedded default is SQLite (sqlite-store.ts); the cluster mode implements
// the same interface on NATS JetStream. Writes resolve once they are durable: the daemon sends
// an event to clients only after its append resolved, so no client sees an event a crash loses.
import type { Effort, HarnessId, ReinsEvent, SessionSpec } from '@reins/core';

/** A session's state as stored: `open` sessions come back dormant after a restart. */
export type StoredSessionState = 'open' | 'closed';

export interface StoredSession {
  sessionId: string;
  harness: HarnessId;
  cwd: string;
  /** The spec it was created with, kept current for resume (model and effort follow changes). */
  spec: SessionSpec;
  /**
   * Harness options a client passed at create, without `baseEnv` (an environment is never
   * written to disk); used again when the session resumes.
   */
  harnessOptions?: Record<string, unknown>;
  /** The client gave a base environment at create; it is not stored, so a resume runs without it. */
  hadBaseEnv?: boolean;
  /** Where it may run (cluster mode: a resume goes to a worker with these labels); the SQLite store keeps none. */
  labels?: Record<string, string>;
  nativeSessionId?: string;
  title?: string;
  model?: string;
  effort?: Effort;
  state: StoredSessionState;
  /**
   * Harness processes this session has had (0 for the first): the daemon keeps turn ids unique
   * across resumes with it.
   */
  generation: number;
  createdAt: number;
  updatedAt: number;
  closedAt?: number;
  /**
   * The turn running right now, if any (its id as logged, and the seq of its turn.started): a
   * daemon that starts and finds one left by a crash ends it in the log (failed), so every turn
   * of a log has its one terminal.
   */
  openTurn?: OpenTurn;
}

export interface OpenTurn {
  turnId: string;
  seq: number;
}

/** What can change on a stored session after it was created (openTurn: null clears it). */
export type SessionPatch = Partial<
  Pick<
    StoredSession,
    'spec' | 'nativeSessionId' | 'title' | 'model' | 'effort' | 'state' | 'generation' | 'updatedAt' | 'closedAt'
  >
> & { openTurn?: OpenTurn | null };

/** A stored session together with the seq of its newest stored event. */
export interface LoadedSession extends StoredSession {
  lastSeq: number;
}

/** A harness process group the daemon started (its leader's pid is the group id). */
export interface ProcessGroupRecord {
  /** Unique per process ever: `<bootId>:<pid>:<startTicks>`. */
  id: string;
  pgid: number;
  pid: number;
  /** The leader's start time in clock ticks since boot (/proc/<pid>/stat field 22); absent off Linux. */
  startTicks?: string;
  /** /proc/sys/kernel/random/boot_id when it started; absent off Linux. */
  bootId?: string;
  sessionId?: string;
  harness?: string;
  label: string;
  startedAt: number;
  endedAt?: number;
}

/** One stored event as its JSON text. */
export interface StoredEventText {
  seq: number;
  json: string;
  /** The row is there but does not read (not JSON, or a damaged page): why. `json` is then empty. */
  damaged?: string;
}

export interface DaemonStore {
  /** Where it lives, for messages (a file path, a URL). */
  readonly location: string;
  /** Every stored session with its last seq. */
  loadSessions(): Promise<LoadedSession[]>;
  /** Creates or replaces a session record. */
  putSession(session: StoredSession): Promise<void>;
  updateSession(sessionId: string, patch: SessionPatch): Promise<void>;
  /** Removes a session and all its events. */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Appends events (seq must follow the session's last one); resolves once they are durable.
   * Moves the session's updatedAt to the newest event's time.
   */
  appendEvents(sessionId: string, events: readonly ReinsEvent[], serialized?: readonly string[]): Promise<void>;
  /** Events with seq > afterSeq, oldest first, at most `limit`. */
  readEvents(sessionId: string, afterSeq: number, limit: number): Promise<ReinsEvent[]>;
  /**
   * The same events as the JSON text they were stored as (appendEvents' `serialized`), where the
   * store keeps text: a replay sends that text as it is, without a parse and a stringify per event.
   */
  readEventTexts?(sessionId: string, afterSeq: number, limit: number): Promise<StoredEventText[]>;
  /**
   * A write that changes nothing, to learn whether the store can write now (a full disk refuses
   * it); where absent, the daemon learns it from the next real write.
   */
  checkWritable?(): Promise<void>;
  recordProcessGroup(group: ProcessGroupRecord): Promise<void>;
  endProcessGroup(id: string, endedAt: number): Promise<void>;
  /** Groups recorded as started and never as ended (after a crash: candidates to reap). */
  openProcessGroups(): Promise<ProcessGroupRecord[]>;
  /** Writes what is pending and releases the store. */
  close(): Promise<void>;
}
