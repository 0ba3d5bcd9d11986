// The stall watchdog of a running turn (docs/architecture/contract.md, "Turn rules"): it fires when no
// native frame arrived for `timeoutMs`, unless something holds it (a pending approval: the harness waits
// for the user, not stuck). One timer per turn, re-armed lazily from the time of the last frame, so a
// frame costs a clock read, not a timer.
export class StallWatchdog {
  private lastActivity = 0;
  private holds = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  /** A native frame arrived. */
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
