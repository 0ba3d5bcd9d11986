// The stall watchdog of a running turn (docs/architecture/contract.md, "Turn rules"): it fires when the
// turn made no progress for `timeoutMs` (isTurnProgress: its items, deltas, tool progress, approvals;
// a harness's unrelated chatter does not count), unless something holds it (a pending approval: the
// harness waits for the user, not stuck). One timer per turn, re-armed lazily from the time of the last
// progress, so an event costs a clock read, not a timer.
import type { ReinsEvent } from '@reins/core';

/** Notices that report work on the turn itself, not the account, the session or the harness. */
const TURN_NOTICES: ReadonlySet<string> = new Set(['retry', 'compaction', 'hook']);

/**
 * True when `event` shows the running turn `turnId` moving: an item of it (a subagent's too), a delta,
 * an approval, its usage, a retry or compaction notice. Not: passthroughs, session updates, rate-limit
 * or warning notices, anything of another turn or of none (heartbeats, account updates, background work).
 */
export function isTurnProgress(event: ReinsEvent, turnId: string): boolean {
  if (event.turnId !== turnId) return false;
  switch (event.type) {
    case 'item.started':
    case 'item.delta':
    case 'item.completed':
    case 'permission.requested':
    case 'permission.resolved':
    case 'usage.updated':
      return true;
    case 'notice':
      return TURN_NOTICES.has(event.kind);
    default:
      return false;
  }
}

export class StallWatchdog {
  private lastActivity = 0;
  private holds = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  /** The turn made progress. */
  activity(): void {
    this.lastActivity = this.now();
  }

  /** Holds the watchdog until the returned release is called (idempotent); release counts as activity. */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.activity();
    };
  }

  /** Starts watching; `onStall` runs once when the watched thing went silent for the timeout. */
  arm(onStall: () => void): void {
    this.stop();
    this.activity();
    const check = () => {
      const idle = this.now() - this.lastActivity;
      if (this.holds > 0 || idle < this.timeoutMs) {
        this.schedule(check, this.holds > 0 ? this.timeoutMs : this.timeoutMs - idle);
        return;
      }
      this.timer = undefined;
      onStall();
    };
    this.schedule(check, this.timeoutMs);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(check: () => void, ms: number): void {
    this.timer = setTimeout(check, ms);
    this.timer.unref?.();
  }
}
