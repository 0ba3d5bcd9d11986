// Every wait in the real tier has a deadline. The base values fit an idle 2-core machine with slack; a
// machine shared with other heavy jobs (load average 20+ was seen while developing) can stretch all of
// them at once with REINS_DEADLINE_SCALE=3 instead of tests growing unbounded waits.
const raw = Number(process.env.REINS_DEADLINE_SCALE ?? '1');
export const deadlineScale = Number.isFinite(raw) && raw > 0 ? raw : 1;

export function scaled(ms: number): number {
  return Math.round(ms * deadlineScale);
}

/** A vitest per-test timeout that stays above the sum of the test's scaled deadlines. */
export function testTimeout(ms = 120_000): number {
  return scaled(ms);
}
