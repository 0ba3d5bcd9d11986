// One poller for tests: wait for a condition with a deadline instead of sampling once (docs/architecture/testing.md).

const FIRST_INTERVAL_MS = 5;
/** Long waits back off to this, so a probe that scans /proc or a store stays light on a busy machine. */
const LONGEST_INTERVAL_MS = 50;

/**
 * Calls `probe` (sync or async) until it returns a truthy value and resolves with that value. After
 * `timeoutMs` without one it rejects with an error naming `what` (a function is called only then, so
 * the message can say what was seen instead).
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let interval = FIRST_INTERVAL_MS;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? what() : what;
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${described}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
    interval = Math.min(interval * 2, LONGEST_INTERVAL_MS);
  }
}
