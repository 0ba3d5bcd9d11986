// What a bridge remembers of the conversations it ran, across processes: the settings a session had
// (so a resumed one keeps its model) and, for Codex threads, the turns as they ended (id, status,
// error, how many inputs each took), which a harness's own transcript does not say (an interrupted
// or failed turn reads there like any other, a steered one like two). One small JSON file per
// conversation under `$REINS_HOME/bridges/<protocol>/<harness>/`, written whole and renamed into
// place. Nothing here is a credential. A store that cannot be read or written never stops a bridge:
// it says so on the log and the bridge goes on without what it would have remembered.
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const TURN_RECORD_STATUSES = ['completed', 'interrupted', 'failed'] as const;

export const TurnRecordSchema = z.object({
  id: z.string().min(1),
  status: z.enum(TURN_RECORD_STATUSES),
  /** The error of a failed turn, as the client was told it. */
  error: z
    .object({
      message: z.string(),
      codexErrorInfo: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
      additionalDetails: z.string().nullable().optional(),
    })
    .optional(),
  /** User inputs the turn took (more than one when input was steered into it). */
  inputs: z.number().int().positive(),
  /** The start of the turn's first input, to find the turn again in the harness's transcript. */
  firstInput: z.string().optional(),
  startedAtMs: z.number(),
  completedAtMs: z.number().optional(),
});
export type TurnRecord = z.infer<typeof TurnRecordSchema>;

export const SessionRecordSchema = z.object({
  /** The id the client knows (Codex thread id, ACP session id). */
  id: z.string().min(1),
  nativeSessionId: z.string().optional(),
  cwd: z.string(),
  model: z.string().optional(),
  effort: z.string().optional(),
  /** ACP mode (posture) the session runs in. */
  mode: z.string().optional(),
  name: z.string().optional(),
  preview: z.string().optional(),
  /** The conversation this one was forked from (its id as the client knows it). */
  forkedFromId: z.string().optional(),
  /** When a client archived it (Codex thread/archive): thread/list leaves it out unless asked for archived ones. */
  archivedAtMs: z.number().optional(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  turns: z.array(TurnRecordSchema).default([]),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** Turns kept per conversation (the oldest are forgotten first). */
export const MAX_TURN_RECORDS = 500;

export interface RecordStore {
  get(id: string): Promise<SessionRecord | undefined>;
  put(record: SessionRecord): Promise<void>;
  list(): Promise<SessionRecord[]>;
  /**
   * Reads, changes and writes one record, one change at a time per id (two changes that overlap,
   * a turn's end and an unsubscribe, never lose each other's part). `change` gets the record or
   * undefined and returns what to keep (undefined: nothing is written).
   */
  update(id: string, change: (record: SessionRecord | undefined) => SessionRecord | undefined): Promise<void>;
}

/** `update` for any store: changes of one id run one after another. */
function serialUpdates(store: Omit<RecordStore, 'update'>): RecordStore['update'] {
  const chains = new Map<string, Promise<void>>();
  return (id, change) => {
    const run = (chains.get(id) ?? Promise.resolve()).then(async () => {
      const next = change(await store.get(id));
      if (next) await store.put(next);
    });
    const settled = run.catch(() => {});
    chains.set(id, settled);
    void settled.then(() => {
      if (chains.get(id) === settled) chains.delete(id);
    });
    return run;
  };
}

/** A store in memory (tests, and `--no-records`): nothing outlives the process. */
export function memoryRecords(): RecordStore {
  const records = new Map<string, SessionRecord>();
  const store = {
    get: async (id: string) => structuredClone(records.get(id)),
    put: async (record: SessionRecord) => {
      records.set(record.id, structuredClone(record));
    },
    list: async () => [...records.values()].map((record) => structuredClone(record)),
  };
  return { ...store, update: serialUpdates(store) };
}

function fileName(id: string): string {
  // Ids come from clients and harnesses: a hash keeps them out of the path.
  return `${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`;
}

/** Records a store keeps the text of (the threads that changed last), beyond which they are read again. */
const KEPT_RECORDS = 64;

/** Which file a path names now: its inode, size and modification time (a rename puts another file there). */
type FileStamp = string;
const stampOf = (stats: BigIntStats): FileStamp => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;

/**
 * A store in `dir` (one file per conversation); `log` hears of every file it could not use.
 *
 * The files stay the truth across processes, but a bridge does not read back what it wrote itself: it
 * keeps the text of each record it wrote with the stamp of the file it wrote (fstat before the
 * rename), and takes that text while the path still names that same file (a turn's end then costs a
 * stat instead of a read, a parse and the schema). Any other process's write (a whole new
 * file renamed into place, or one changed in place) gives the path another stamp, so that record is
 * read from disk again and a change to it starts from what the other process wrote, as before. (Only
 * a file that reuses the old inode number with the same size within one tick of the file system's
 * clock would pass for the kept one: narrower than the read-change-write race two bridges changing one
 * record at once already have.)
 */
export function fileRecords(dir: string, log: (message: string) => void = () => {}): RecordStore {
  const writes = new Map<string, Promise<void>>();
  /** Per path, the text this process wrote there and the stamp of the file it wrote; the newest only. */
  const written = new Map<string, { stamp: FileStamp; text: string }>();
  let dirMade = false;
  /** Each id's path, hashed once (a turn's end asks for it twice). */
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    let path = paths.get(id);
    if (path === undefined) {
      if (paths.size >= 1024) paths.clear();
      path = join(dir, fileName(id));
      paths.set(id, path);
    }
    return path;
  };
  const read = async (path: string): Promise<SessionRecord | undefined> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log(`cannot read ${path}: ${String(error)}`);
      return undefined;
    }
    try {
      const parsed = SessionRecordSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      log(`ignored ${path}: not a session record`);
    } catch {
      log(`ignored ${path}: not JSON`);
    }
    return undefined;
  };
  /** The record at `path`: the copy this process wrote while the file is still that one, else the disk's. */
  const current = async (path: string): Promise<SessionRecord | undefined> => {
    const kept = written.get(path);
    if (kept) {
      const stamp = await stat(path, { bigint: true }).then(stampOf, () => undefined);
      // Its own output, from typed values: the schema guards what comes from elsewhere (the disk).
      if (stamp === kept.stamp) return JSON.parse(kept.text) as SessionRecord;
      written.delete(path);
    }
    return read(path);
  };
  /** Writes `text` to a new file beside `path` and renames it into place; the stamp of the file written. */
  const replace = async (path: string, text: string): Promise<FileStamp> => {
    if (!dirMade) await mkdir(dir, { recursive: true, mode: 0o700 });
    dirMade = true;
    const temporary = `${path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600).catch(async (error: NodeJS.ErrnoException) => {
      // The folder went away since (removed by hand): made again once.
      if (error.code !== 'ENOENT') throw error;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return open(temporary, 'w', 0o600);
    });
    let stamp: FileStamp;
    try {
      await file.writeFile(text);
      stamp = stampOf(await file.stat({ bigint: true }));
    } finally {
      await file.close();
    }
    await rename(temporary, path);
    return stamp;
  };
  const store: Omit<RecordStore, 'update'> = {
    get: async (id) => {
      await writes.get(id);
      const record = await current(pathOf(id));
      return record?.id === id ? record : undefined;
    },
    put: (record) => {
      const path = pathOf(record.id);
      const kept = { ...record, turns: record.turns.slice(-MAX_TURN_RECORDS) };
      const previous = writes.get(record.id) ?? Promise.resolve();
      const write = previous.then(async () => {
        written.delete(path);
        try {
          const text = JSON.stringify(kept);
          written.set(path, { stamp: await replace(path, text), text });
          // A long-lived bridge's closed threads are not kept in memory: their records are read if asked for.
          if (written.size > KEPT_RECORDS) written.delete(written.keys().next().value as string);
        } catch (error) {
          log(`cannot write ${path}: ${String(error)}`);
        }
      });
      writes.set(record.id, write);
      void write.then(() => {
        if (writes.get(record.id) === write) writes.delete(record.id);
      });
      return write;
    },
    list: async () => {
      await Promise.all(writes.values());
      let names: string[];
      try {
        names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
      } catch {
        return [];
      }
      const records = await Promise.all(names.map((name) => read(join(dir, name))));
      return records.filter((record): record is SessionRecord => record !== undefined);
    },
  };
  return { ...store, update: serialUpdates(store) };
}

/** Where a bridge keeps the records of one harness: `<reins home>/bridges/<protocol>/<harness>`. */
export function recordsDir(reinsHomeDir: string, protocol: 'acp' | 'codex-app-server', harness: string): string {
  return join(reinsHomeDir, 'bridges', protocol, harness);
}
