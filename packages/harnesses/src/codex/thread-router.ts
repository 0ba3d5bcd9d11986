// Which session a frame of a shared app-server belongs to (pure: no process, no I/O). One app-server
// hosts many threads (docs/architecture/contract.md, "Warm starts and shared processes"); each Reins
// session owns one thread and the subagent threads it spawns. A frame goes to the session of its
// `threadId`, a frame with no thread (process-wide: rate limits, config warnings) to every session.
// A frame of a thread nobody has claimed yet (Codex can send thread/started before its thread/start
// answer is read) is held until the thread is bound, within a bound. A frame of a thread whose session
// left is dropped. Only a process that has only ever had one session hands it what cannot be named
// (unknown threads, unparsable lines, late answers): that is the one-process-per-session behaviour.
import { isRecord } from '@reins/core';

/** At most this many frames are held for threads nobody has claimed; the oldest go first. */
export const HELD_FRAMES = 512;
/** Thread ids of sessions that left, remembered so their late frames reach nobody. */
const RELEASED_REMEMBERED = 4096;

/**
 * Hands one frame to one lease. The router calls it instead of returning where frames go: this runs
 * for every frame of a shared app-server, and an array plus a closure per frame was ~220 B of the
 * ~1.2 KB Reins allocated per frame beyond the floor (bench/README.md, figure 4).
 */
export type Deliver<L, F> = (lease: L, frame: F, at: number) => void;

export class ThreadRouter<L, F = Record<string, unknown>> {
  private readonly owners = new Map<string, L>();
  private readonly leases = new Set<L>();
  private leasesEver = 0;
  /** The process hosts a thread opened ahead for a later session: no lease is its sole one any more. */
  private threadsAhead = false;
  private readonly released = new Set<string>();
  private readonly held: Array<{ threadId: string; frame: F }> = [];
  /** Frames dropped: held past the bound, of a session that left, or of a thread nobody claimed. */
  dropped = 0;

  attach(lease: L): void {
    this.leases.add(lease);
    this.leasesEver++;
  }

  /** The lease left: its threads are forgotten (their late frames are dropped). Returns its threads. */
  detach(lease: L): string[] {
    this.leases.delete(lease);
    const threads: string[] = [];
    for (const [threadId, owner] of this.owners) {
      if (owner !== lease) continue;
      this.owners.delete(threadId);
      this.remember(threadId);
      threads.push(threadId);
    }
    return threads;
  }

  get leaseCount(): number {
    return this.leases.size;
  }

  /** Whether any lease was ever attached (a process a session used, as opposed to one only probed). */
  get everAttached(): boolean {
    return this.leasesEver > 0;
  }

  /** Every lease attached now. */
  get attached(): L[] {
    return [...this.leases];
  }

  /** Whether a session on this process owns the thread now. */
  owns(threadId: string): boolean {
    return this.owners.has(threadId);
  }

  /** The lease claims a thread; frames held for it go to `deliver` now (at `at`), in arrival order. */
  bind(threadId: string, lease: L, at: number, deliver: Deliver<L, F>): void {
    if (!this.leases.has(lease)) return;
    this.owners.set(threadId, lease);
    this.released.delete(threadId);
    if (this.held.length === 0) return;
    const flushed: F[] = [];
    for (let i = 0; i < this.held.length; ) {
      const entry = this.held[i] as { threadId: string; frame: F };
      if (entry.threadId === threadId) {
        flushed.push(entry.frame);
        this.held.splice(i, 1);
      } else i++;
    }
    // Delivered after the held list is settled: a handler may bind or route in turn.
    for (const frame of flushed) deliver(lease, frame, at);
  }

  /**
   * Hands a notification to `deliver` for the lease(s) it belongs to, then the held frames it frees:
   * a subagent thread is claimed for its parent's session when thread/started names the parent or a
   * collabAgentToolCall item names it. A process-wide frame goes to every lease attached.
   */
  route(frame: F & { method?: unknown; params?: unknown }, at: number, deliver: Deliver<L, F>): void {
    const threadId = threadOf(frame);
    if (threadId === undefined) {
      // A lease that leaves while the frame is handed round (its handler closed it) gets it no more.
      for (const lease of this.leases) deliver(lease, frame, at);
      return;
    }
    const owner = this.ownerOf(threadId);
    if (owner === undefined) {
      this.hold(threadId, frame);
      return;
    }
    deliver(owner, frame, at);
    const children = childThreadsOf(frame);
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as string;
      if (!this.owners.has(child)) this.bind(child, owner, at, deliver);
    }
  }

  /** The session a server request is for; undefined when none can be named (the request is refused). */
  routeRequest(params: unknown): L | undefined {
    const threadId = isRecord(params) && typeof params.threadId === 'string' ? params.threadId : undefined;
    if (threadId === undefined) return this.sole();
    return this.ownerOf(threadId);
  }

  /** Who gets a line that names no thread at all (unparsable, a late answer): only a sole session. */
  strayOwner(): L | undefined {
    return this.sole();
  }

  private ownerOf(threadId: string): L | undefined {
    const owner = this.owners.get(threadId);
    if (owner !== undefined) return owner;
    if (this.released.has(threadId)) return undefined;
    return this.sole();
  }

  /**
   * The process opens a thread no session holds yet (a thread opened ahead, thread-ahead.ts): from now
   * on a frame that names no known thread may be that one's, so it no longer goes to a sole session.
   */
  expectThreadsAhead(): void {
    this.threadsAhead = true;
  }

  /** The lease of a process that has only ever had this one (and no thread opened ahead). */
  private sole(): L | undefined {
    if (this.threadsAhead || this.leasesEver !== 1 || this.leases.size !== 1) return undefined;
    return this.leases.values().next().value;
  }

  private hold(threadId: string, frame: F): void {
    if (this.released.has(threadId) || this.leases.size === 0) {
      this.dropped++;
      return;
    }
    this.held.push({ threadId, frame });
    if (this.held.length > HELD_FRAMES) {
      this.held.shift();
      this.dropped++;
    }
  }

  private remember(threadId: string): void {
    this.released.add(threadId);
    if (this.released.size > RELEASED_REMEMBERED) {
      const oldest = this.released.values().next().value;
      if (oldest !== undefined) this.released.delete(oldest);
    }
  }
}

/** The thread a notification is about: params.threadId, or the thread thread/started announces. */
export function threadOf(frame: { method?: unknown; params?: unknown }): string | undefined {
  const params = isRecord(frame.params) ? frame.params : undefined;
  if (!params) return undefined;
  if (typeof params.threadId === 'string') return params.threadId;
  if (frame.method === 'thread/started' && isRecord(params.thread) && typeof params.thread.id === 'string') {
    // A subagent's thread/started is its parent's business (SubAgentSource.thread_spawn, 0.171.0).
    return parentThreadOf(params.thread) ?? params.thread.id;
  }
  return undefined;
}

function parentThreadOf(thread: Record<string, unknown>): string | undefined {
  const source = thread.source;
  if (!isRecord(source) || !isRecord(source.subAgent)) return undefined;
  const spawn = source.subAgent.thread_spawn;
  return isRecord(spawn) && typeof spawn.parent_thread_id === 'string' ? spawn.parent_thread_id : undefined;
}

/** Threads a frame says were spawned from its thread (subagents). */
function childThreadsOf(frame: { method?: unknown; params?: unknown }): readonly string[] {
  const method = frame.method;
  // Most frames are deltas: no array for them (this runs for every frame).
  if (method !== 'thread/started' && method !== 'item/started' && method !== 'item/completed') return NO_THREADS;
  const params = isRecord(frame.params) ? frame.params : undefined;
  if (!params) return NO_THREADS;
  if (method === 'thread/started' && isRecord(params.thread) && typeof params.thread.id === 'string') {
    return parentThreadOf(params.thread) !== undefined ? [params.thread.id] : NO_THREADS;
  }
  const item = params.item;
  if ((method === 'item/started' || method === 'item/completed') && isRecord(item)) {
    if (item.type === 'collabAgentToolCall' && Array.isArray(item.receiverThreadIds)) {
      return item.receiverThreadIds.filter((id): id is string => typeof id === 'string');
    }
  }
  return NO_THREADS;
}

const NO_THREADS: readonly string[] = Object.freeze([]);
