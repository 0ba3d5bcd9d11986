// Coalesces work to one run per animation frame: a session streaming hundreds of deltas a second
// (or replaying 20 000 events on open) is folded into its model at once, but views hear about it
// at most once a frame. Injected, so tests flush by hand.

export type FrameScheduler = (callback: () => void) => void;

/** requestAnimationFrame where there is one (the browser), else a macrotask. */
export const animationFrameScheduler: FrameScheduler = (callback) => {
  const raf = (globalThis as { requestAnimationFrame?: (callback: () => void) => number }).requestAnimationFrame;
  if (raf) raf(callback);
  else setTimeout(callback, 16);
};

/** Runs `work` once in the next frame however often `request()` is called before it. */
export class FrameCoalescer {
  private scheduled = false;

  constructor(
    private readonly work: () => void,
    private readonly schedule: FrameScheduler = animationFrameScheduler,
  ) {}

  request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.work();
    });
  }
}
