// Summary statistics for the bench: every figure is reported as median with min-max (and
// percentiles where there are many samples), never as a mean that one stalled run can drag.

/** Sorted copy of finite samples. */
function sorted(samples) {
  return samples.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of sorted samples. */
export function percentile(sortedSamples, p) {
  if (sortedSamples.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedSamples.length);
  return sortedSamples[Math.min(sortedSamples.length - 1, Math.max(0, rank - 1))];
}

export function median(samples) {
  const s = sorted(samples);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** { n, median, min, max } (plus p99 when asked) of the samples, rounded for the JSON file. */
export function summarize(samples, { digits = 2, p99 = false } = {}) {
  const s = sorted(samples);
  const round = (value) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);
  const out = {
    n: s.length,
    median: round(median(s)),
    min: round(s[0] ?? Number.NaN),
    max: round(s.at(-1) ?? Number.NaN),
  };
  if (p99) {
    out.p50 = round(percentile(s, 50));
    out.p99 = round(percentile(s, 99));
  }
  return out;
}

/** a / b, or null when either is missing. */
export function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? Number((a / b).toFixed(3)) : null;
}

/** Formats "median (min-max)" for the terminal table. */
export function cell(summary, unit = 'ms', digits = 0) {
  if (!summary || summary.n === 0 || summary.median === null) return 'n/a';
  const f = (value) => value.toFixed(digits);
  return `${f(summary.median)} ${unit} (${f(summary.min)}-${f(summary.max)})`;
}
