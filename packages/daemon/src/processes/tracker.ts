// Records in the store every harness process group this daemon starts and ends, through the
// runtime's observeHarnessProcesses hook. Which daemon (and session) a child belongs to comes from
// the async context it was spawned in: the daemon runs every harness call inside `run(...)`. A
// child spawned outside any daemon's context is recorded by the only daemon of this process, if
// there is exactly one (tests run several daemons in one process; each records only its own).
// Each group is also told to the daemon's child watcher, which ends the groups if the daemon dies.
// A write the store refuses (a full disk) is logged and written again, in order, before the next
// one and at close, so the records catch up once the disk has room.
import { AsyncLocalStorage } from 'node:async_hooks';
import { observeHarnessProcesses } from '@reins/harnesses';
import type { Logger } from '../logger.js';
import type { DaemonStore, ProcessGroupRecord } from '../store/store.js';
import { ChildWatcher } from './child-watcher.js';
import { bootId, readProcess } from './proc.js';

interface SpawnContext {
  tracker: ProcessTracker;
  sessionId?: string;
}

const context = new AsyncLocalStorage<SpawnContext>();
const trackers = new Set<ProcessTracker>();
let removeObserver: (() => void) | undefined;

function owner(): { tracker: ProcessTracker; sessionId?: string } | undefined {
  const current = context.getStore();
  if (current && trackers.has(current.tracker)) return current;
  if (trackers.size === 1) return { tracker: [...trackers][0] as ProcessTracker };
  return undefined;
}

function install(): void {
  if (removeObserver) return;
  removeObserver = observeHarnessProcesses({
    started(child) {
      owner()?.tracker.started(child, context.getStore()?.sessionId);
    },
    exited(child) {
      for (const tracker of trackers) tracker.exited(child.pid);
    },
  });
}

/** How long close() waits for the store before it leaves the records to the next start's reaper. */
const CLOSE_WAIT_MS = 2_000;

export class ProcessTracker {
  /** Our live groups by leader pid. */
  private readonly live = new Map<number, string>();
  /** Store writes in flight, so close() can wait for them. */
  private readonly writes = new Set<Promise<void>>();
  /** Writes the store refused, oldest first; written again before any newer one. */
  private readonly refused: Array<() => Promise<void>> = [];
  private retrying: Promise<void> | undefined;
  /** Ends our groups when this process dies (Linux). */
  private readonly watcher = ChildWatcher.start();

  constructor(
    private readonly store: DaemonStore,
    private readonly log: Logger,
  ) {
    trackers.add(this);
    install();
  }

  /** Runs `work` so that the children it spawns are recorded as this daemon's (and this session's). */
  run<T>(sessionId: string | undefined, work: () => T): T {
    return context.run({ tracker: this, ...(sessionId !== undefined ? { sessionId } : {}) }, work);
  }

  started(child: { pid: number; label: string; harness?: string }, sessionId: string | undefined): void {
    const info = readProcess(child.pid);
    const boot = bootId();
    const record: ProcessGroupRecord = {
      id: `${boot ?? 'unknown'}:${child.pid}:${info?.startTicks ?? Date.now()}`,
      pgid: child.pid,
      pid: child.pid,
      ...(info ? { startTicks: info.startTicks } : {}),
      ...(boot !== undefined ? { bootId: boot } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(child.harness !== undefined ? { harness: child.harness } : {}),
      label: child.label,
      startedAt: Date.now(),
    };
    this.live.set(child.pid, record.id);
    this.watcher?.started(child.pid, info?.startTicks);
    this.track(() => this.store.recordProcessGroup(record));
  }

  exited(pid: number): void {
    const id = this.live.get(pid);
    if (id === undefined) return;
    this.live.delete(pid);
    this.watcher?.ended(pid);
    const endedAt = Date.now();
    this.track(() => this.store.endProcessGroup(id, endedAt));
  }

  get liveGroups(): number {
    return this.live.size;
  }

  private track(write: () => Promise<void>): void {
    if (this.refused.length > 0) {
      this.refused.push(write);
      this.hold(this.writeRefused());
      return;
    }
    this.hold(
      write().catch((error: unknown) => {
        this.log.error('could not record a process group; written again with the next one', {
          error: (error as Error).message,
        });
        this.refused.push(write);
      }),
    );
  }

  private hold(tracked: Promise<void>): void {
    this.writes.add(tracked);
    void tracked.finally(() => this.writes.delete(tracked));
  }

  /** Writes what the store refused, oldest first, until one is refused again. */
  private writeRefused(): Promise<void> {
    this.retrying ??= (async () => {
      try {
        for (let next = this.refused[0]; next; next = this.refused[0]) {
          await next();
          this.refused.shift();
        }
      } catch (error) {
        this.log.error('could not record a process group', { error: (error as Error).message });
      } finally {
        this.retrying = undefined;
      }
    })();
    return this.retrying;
  }

  /**
   * Stops recording; resolves when every write went to the store (the refused ones tried once more), or
   * after CLOSE_WAIT_MS: a store that hangs (a worker cut off from NATS, whose writes wait out their
   * timeouts one after another) must not hold the close; the next start's reaper settles whatever
   * groups stayed unrecorded.
   */
  async close(): Promise<void> {
    trackers.delete(this);
    this.watcher?.close();
    const written = (async () => {
      await Promise.all([...this.writes]);
      if (this.refused.length > 0) await this.writeRefused();
    })();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    await Promise.race([written, gaveUp]);
    clearTimeout(timer);
  }
}
