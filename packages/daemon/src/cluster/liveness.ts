// Who is alive, as one member sees it (pure; times from the caller's monotonic clock). Every
// heartbeat that comes back through the members bucket's watch is noted with the time it arrived
// here, so no two machines' clocks are ever compared. A worker run (id + epoch) is gone when its
// heartbeats stopped for the deadline, when its key was deleted (a clean exit), or when the worker
// came back as another run. Our own heartbeats coming back prove that what we see is current:
// while they do not (NATS unreachable from here), nobody is declared gone, and once they do again
// every member gets a whole deadline before it can be.
import type { MemberRecord } from './records.js';

interface Seen {
  record: MemberRecord;
  at: number;
}

export class Liveness {
  private readonly members = new Map<string, Seen>();
  private lastOwnBeat = Number.NEGATIVE_INFINITY;
  /** Since when our view has been current without a break. */
  private currentSince: number | undefined;

  constructor(
    private readonly ttlMs: number,
    /** Our own key in the members bucket (`gateway.<id>`, `worker.<id>`). */
    private readonly selfKey: string,
  ) {}

  /** A heartbeat (put) arrived under `key`. */
  beat(key: string, record: MemberRecord, now: number): void {
    if (key === this.selfKey) {
      if (!this.isCurrent(now)) {
        // We were cut off: what we last saw of everyone is old news, not a sign they are gone.
        for (const seen of this.members.values()) seen.at = now;
        this.currentSince = now;
      }
      this.lastOwnBeat = now;
    }
    this.members.set(key, { record, at: now });
  }

  /** `key` was deleted: that member left on purpose. */
  left(key: string): void {
    this.members.delete(key);
  }

  /** Our own heartbeats come back in time, so what we see of others is current. */
  isCurrent(now: number): boolean {
    return now - this.lastOwnBeat <= this.ttlMs / 2;
  }

  /**
   * Whether run `epoch` of worker `workerId` may still be alive. True whenever we cannot tell
   * (our view is not current, or it is too young to have heard from everyone).
   */
  holderMayBeAlive(workerId: string, epoch: string, now: number): boolean {
    if (!this.isCurrent(now)) return true;
    const seen = this.members.get(`worker.${workerId}`);
    if (seen?.record.epoch === epoch) return now - seen.at <= this.ttlMs;
    if (seen) return false; // the worker came back as another run: that run is over
    // Never heard of (it left, or died before we started): only once we had a deadline to hear it.
    return now - (this.currentSince ?? now) <= this.ttlMs;
  }

  /** Workers heard from within the deadline, oldest key first. */
  liveWorkers(now: number): MemberRecord[] {
    const out: MemberRecord[] = [];
    for (const seen of this.members.values()) {
      if (seen.record.role === 'worker' && now - seen.at <= this.ttlMs) out.push(seen.record);
    }
    return out;
  }

  /** The live run of a worker, if any. */
  liveWorker(workerId: string, now: number): MemberRecord | undefined {
    const seen = this.members.get(`worker.${workerId}`);
    return seen && now - seen.at <= this.ttlMs ? seen.record : undefined;
  }
}
