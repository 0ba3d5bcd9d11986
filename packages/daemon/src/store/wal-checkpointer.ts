// The WAL's checkpoints, off the event loop (issue 30). SQLite's automatic checkpoint runs inside the
// COMMIT that crosses 1,000 pages, on the committing thread: it copies the WAL into the database file
// and fsyncs it, which held the daemon's loop 4-35 ms every ~4 MB of WAL at 10k events/s: the
// store's longest stalls (30-40 commits over 2 ms in 30,000 events, 5-12 without). Here a worker
// thread with a connection of its own runs `wal_checkpoint(PASSIVE)` (which never blocks the writer)
// every CHECKPOINT_EVERY commits, and the writer's automatic checkpoint is off.
//
// A PASSIVE checkpoint copies only the frames committed before it began, so under a steady stream
// the WAL is never wholly copied and never starts over: once it holds more than WAL_BOUND_BYTES, the
// writer runs one catch-up checkpoint itself (the frames since the worker's last one) after its
// commit has been delivered, and its next commit starts the WAL over; journal_size_limit then cuts
// the file back to the bound.
//
// A checkpoint never decides durability (a committed transaction is in the WAL), so a thread that
// dies or a checkpoint that fails loses nothing: the store says so (warn) and SQLite's automatic
// checkpoint on the writer takes over again, as before this thread existed.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite-driver.js';

/**
 * Commits between two checkpoints of the thread: 3-5 pages a commit, so about SQLite's own 1,000 pages.
 * Each checkpoint fsyncs the database file: every 64 commits (16 a second at 1k events/s) gave a worse
 * p99 at 1k events/s than SQLite's own checkpoints (5 of 6 alternated pairs at load ~5), every 256 a
 * better one (5 of 6).
 */
export const CHECKPOINT_EVERY = 256;
/** Past this the writer catches up itself so that the WAL starts over: about the most disk the WAL holds. */
export const WAL_BOUND_BYTES = 64 * 1024 * 1024;

// Source, not a file: the thread then needs no compiled file of its own (the source tests run the
// TypeScript as it is). It takes the binding the writer uses.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const db = workerData.driver === 'node:sqlite'
  ? new (require('node:sqlite').DatabaseSync)(workerData.location, { timeout: 0 })
  : new (require(workerData.module))(workerData.location, { timeout: 0 });
let checkpoint;
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    checkpoint ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    const row = checkpoint.get();
    parentPort.postMessage({ frames: Number(row.log) });
  } catch (error) {
    parentPort.postMessage({ failed: String(error && error.message) });
  }
});
`;

type Reply = { frames: number } | { failed: string };

const require = createRequire(import.meta.url);

export class WalCheckpointer {
  private thread: Worker | undefined;
  private inFlight = false;
  private commits = 0;
  private catchUpScheduled = false;
  private needsCatchUp = false;
  private closing = false;
  private readonly pageSize: number;
  /** Checkpoints the thread finished, and the writer's catch-ups (tests). */
  completed = 0;
  catchUps = 0;

  constructor(
    private readonly writer: SqliteDatabase,
    private readonly location: string,
    private readonly warn: (message: string) => void,
    private readonly boundBytes = WAL_BOUND_BYTES,
  ) {
    this.pageSize = Number(writer.pragmaValue('page_size'));
    writer.exec(`PRAGMA journal_size_limit = ${boundBytes}`);
    let thread: Worker;
    try {
      thread = new Worker(THREAD_SOURCE, {
        eval: true,
        workerData: {
          driver: writer.driver,
          location,
          module: writer.driver === 'better-sqlite3' ? require.resolve('better-sqlite3') : undefined,
        },
      });
    } catch (error) {
      // No thread to be had (a resource limit): SQLite's automatic checkpoint stays on.
      warn(
        `The Reins store ${location}: no checkpoint thread (${(error as Error).message}); SQLite checkpoints its WAL on the event loop.`,
      );
      return;
    }
    writer.exec('PRAGMA wal_autocheckpoint = 0');
    thread.unref();
    thread.on('message', (reply: Reply) => this.answered(reply));
    thread.on('error', (error) => this.stop(`its checkpoint thread failed (${error.message})`));
    thread.on('exit', (code) => {
      if (!this.closing) this.stop(`its checkpoint thread ended (exit code ${code})`);
    });
    this.thread = thread;
  }

  /** Whether checkpoints run on the thread (false once it failed: SQLite's own on the writer again). */
  get running(): boolean {
    return this.thread !== undefined;
  }

  /** Called after each commit of the writer, once its writes are resolved. */
  committed(): void {
    const thread = this.thread;
    if (thread === undefined) return;
    if (this.needsCatchUp && !this.inFlight && !this.catchUpScheduled) {
      // After this tick's delivery: the catch-up holds the loop for its fsync, not the events just committed.
      this.catchUpScheduled = true;
      setImmediate(() => this.catchUp());
    }
    if (++this.commits < CHECKPOINT_EVERY || this.inFlight) return;
    this.commits = 0;
    this.inFlight = true;
    thread.postMessage('checkpoint');
  }

  private catchUp(): void {
    this.catchUpScheduled = false;
    if (this.thread === undefined || this.closing || this.inFlight) return;
    this.needsCatchUp = false;
    try {
      this.writer.exec('PRAGMA wal_checkpoint(PASSIVE)');
      this.catchUps++;
    } catch (error) {
      this.stop(`a checkpoint failed (${(error as Error).message})`);
    }
  }

  private answered(reply: Reply): void {
    this.inFlight = false;
    if ('failed' in reply) {
      this.stop(`a checkpoint failed (${reply.failed})`);
      return;
    }
    this.completed++;
    if (reply.frames * this.pageSize > this.boundBytes) this.needsCatchUp = true;
  }

  /** The thread is gone or failed: SQLite's automatic checkpoint on the writer again. */
  private stop(reason: string): void {
    const thread = this.thread;
    if (thread === undefined || this.closing) return;
    this.thread = undefined;
    this.inFlight = false;
    try {
      this.writer.exec('PRAGMA wal_autocheckpoint = 1000');
    } catch {
      // the writer is closed: nothing left to checkpoint for
    }
    this.warn(
      `The Reins store ${this.location}: ${reason}. SQLite checkpoints its WAL on the event loop again; nothing was lost (every commit is in the WAL).`,
    );
    void thread.terminate();
  }

  /** Ends the thread and closes its connection, so that the writer's close is the last one (it then removes the WAL). */
  async close(): Promise<void> {
    this.closing = true;
    const thread = this.thread;
    this.thread = undefined;
    if (thread === undefined) return;
    // Referenced again: an unreferenced thread would let the process exit while close awaits it.
    thread.ref();
    await new Promise<void>((resolve) => {
      thread.once('exit', () => resolve());
      thread.postMessage('close');
    });
  }
}
