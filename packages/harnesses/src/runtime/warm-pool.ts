// A pool of harness processes started and initialised ahead of need (docs/architecture/contract.md,
// "Warm starts and shared processes"). It is generic: an adapter says how one item starts, stops and
// ends on its own; the pool keeps `size` of them ready, hands one out with take() and starts its
// replacement at once, and stops them all on dispose(). Items are the adapter's own process wrappers
// (HarnessProcess underneath), so they count in liveProcessCount, sit in their own process group, are
// seen by the daemon's reaper and die with Reins like any other child: the pool adds no process
// bookkeeping of its own, only which ready items nobody holds yet.
//
// Failures never loop: after a start fails (or a ready item dies while waiting), the pool starts no
// more by itself until the next take() or resize().
//
// The replacement of a taken item may wait `refillDelayMs`: on a 2-core machine a harness starting up
// (Codex 0.171.0: a synchronous spawn of ~10-30 ms in Reins, then ~150-200 ms of CPU) slows the first
// reply of the session that just took the warm one by as much (bench/README.md, figure 2). A take
// that finds nothing ready refills at once: no session is being served by a warm item then.

export interface WarmPoolSpec<T> {
  /** Starts one item; resolves when it is ready to hand out (spawned and initialised). */
  start(): Promise<T>;
  /** Ends an item the pool still holds (or one that finished starting after dispose). */
  stop(item: T): Promise<void>;
  /** Settles when the item ended on its own; the pool then drops it. */
  ended(item: T): Promise<unknown>;
  /** Hears about a start that failed (the pool itself only stops trying until the next take or resize). */
  onStartError?(error: unknown): void;
  /** How long after a take() that handed out an item its replacement starts (ms, default 0: at once). */
  refillDelayMs?: number;
}

export class WarmPool<T> {
  private target = 0;
  private readonly ready: T[] = [];
  private readonly starting = new Set<Promise<T | undefined>>();
  /** Set by a failed start or an idle death: no automatic start until take() or resize() clears it. */
  private held = false;
  private disposed = false;
  /** A refill scheduled by take() (refillDelayMs), not yet run. */
  private refillTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly spec: WarmPoolSpec<T>,
    size = 0,
  ) {
    if (size > 0) void this.resize(size).catch(() => {});
  }

  /** How many ready items the pool aims to hold. */
  get size(): number {
    return this.target;
  }

  /** Items ready to hand out now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** Items being started. */
  get startingCount(): number {
    return this.starting.size;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Sets the number of items kept ready; extra ready items are stopped. Resolves when every start in
   * flight has settled (so the pool is full unless one failed), and rejects with the first error of
   * the starts this call began (the pool stays usable).
   */
  async resize(size: number): Promise<void> {
    if (!Number.isInteger(size) || size < 0)
      throw new RangeError(`A warm pool size is a whole number >= 0, got ${size}.`);
    if (this.disposed) return;
    this.target = size;
    this.held = false;
    const extra = this.ready.splice(size);
    const earlier = [...this.starting].map((start) => start.catch(() => undefined));
    await Promise.all([...extra.map((item) => this.stopQuietly(item)), ...earlier, this.fill()]);
  }

  /**
   * A ready item, now yours (the pool forgets it), or undefined; either way a replacement is started:
   * after `refillDelayMs` when an item was handed out, at once when none was ready.
   */
  take(): T | undefined {
    if (this.disposed) return undefined;
    const item = this.ready.shift();
    this.held = false;
    const delay = this.spec.refillDelayMs ?? 0;
    if (item === undefined || delay <= 0) this.refillNow();
    else if (this.refillTimer === undefined) {
      this.refillTimer = setTimeout(() => this.refillNow(), delay);
      // A pending refill never keeps Reins running.
      this.refillTimer.unref?.();
    }
    return item;
  }

  /** The first ready item, still the pool's (not handed out, nothing refills). */
  peek(): T | undefined {
    return this.ready[0];
  }

  /**
   * Like take(), but when nothing is ready and items are starting, waits for the first of them: it
   * began before this call, so it is ready before a start begun now would be. Undefined when none is
   * starting (or every start in flight failed).
   */
  async takeSoon(): Promise<T | undefined> {
    while (!this.disposed && this.ready.length === 0 && this.starting.size > 0) {
      await Promise.race([...this.starting].map((start) => start.catch(() => undefined)));
    }
    return this.take();
  }

  /** Stops every ready item and every item still starting; the pool hands out nothing after this. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.target = 0;
    this.cancelRefill();
    const ready = this.ready.splice(0);
    const starting = [...this.starting];
    // An item that finishes starting after dispose is stopped by launch() itself.
    await Promise.all([
      ...ready.map((item) => this.stopQuietly(item)),
      ...starting.map((start) => start.catch(() => undefined)),
    ]);
  }

  private refillNow(): void {
    void this.fill().catch(() => {});
  }

  private cancelRefill(): void {
    if (this.refillTimer !== undefined) clearTimeout(this.refillTimer);
    this.refillTimer = undefined;
  }

  /** Starts as many items as are missing; settles when those starts have. */
  private async fill(): Promise<void> {
    this.cancelRefill(); // whatever was missing starts now
    const missing = this.target - this.ready.length - this.starting.size;
    const started: Array<Promise<T | undefined>> = [];
    for (let i = 0; i < missing && !this.held; i++) started.push(this.launch());
    const results = await Promise.allSettled(started);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  private launch(): Promise<T | undefined> {
    const start = (async () => {
      let item: T;
      try {
        item = await this.spec.start();
      } catch (error) {
        this.held = true;
        this.spec.onStartError?.(error);
        throw error;
      }
      if (this.disposed || this.ready.length >= this.target) {
        await this.stopQuietly(item);
        return undefined;
      }
      this.ready.push(item);
      void this.spec.ended(item).then(() => this.endedWhileReady(item));
      return item;
    })();
    this.starting.add(start);
    const forget = () => this.starting.delete(start);
    start.then(forget, forget);
    return start;
  }

  private endedWhileReady(item: T): void {
    const index = this.ready.indexOf(item);
    if (index === -1) return; // taken (its holder hears of the end) or stopped by the pool
    this.ready.splice(index, 1);
    if (this.held || this.disposed) return;
    this.held = true; // one replacement per take: an item that dies at once does not restart forever
    void this.launch().catch(() => {});
  }

  private async stopQuietly(item: T): Promise<void> {
    try {
      await this.spec.stop(item);
    } catch {
      // stopping is best effort; the process layer kills the group on Reins' exit anyway
    }
  }
}

/**
 * The warm pools of one adapter, one per launch key (process-wide: the daemon makes a Harness per
 * session, so the pool a `warm()` call fills must be the one every session's Harness takes from).
 */
export class WarmPools<T> {
  private readonly pools = new Map<string, WarmPool<T>>();

  /** Keeps `count` items ready for `key` (the spec is used when the pool is new); 0 stops them and forgets it. */
  async warm(key: string, spec: () => WarmPoolSpec<T>, count: number): Promise<void> {
    let pool = this.pools.get(key);
    if (count === 0) {
      this.pools.delete(key);
      await pool?.dispose();
      return;
    }
    if (!pool) {
      pool = new WarmPool<T>(spec());
      this.pools.set(key, pool);
    }
    await pool.resize(count);
  }

  /** A ready item for `key`, now the caller's (a replacement starts), or undefined. */
  take(key: string): T | undefined {
    return this.pools.get(key)?.take();
  }

  /** A ready item of `key` the pool keeps (a caller's borrow for requests that leave no state), or undefined. */
  peek(key: string): T | undefined {
    return this.pools.get(key)?.peek();
  }

  /** take(), or the first item of `key` still starting once it is ready (WarmPool.takeSoon). */
  async takeSoon(key: string): Promise<T | undefined> {
    return this.pools.get(key)?.takeSoon();
  }

  has(key: string): boolean {
    return this.pools.has(key);
  }

  get size(): number {
    return this.pools.size;
  }

  readyCount(key: string): number {
    return this.pools.get(key)?.readyCount ?? 0;
  }
}
