// A harness-supplied value as JSON a client can take, for both bridges: `undefined` becomes null,
// values nested past 64 levels are cut with a marker string (a harness may send 50,000 levels, which
// no writer can serialise), and anything JSON has no place for (a function, a bigint) becomes its
// description.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const MAX_JSON_DEPTH = 64;

export function boundedJson(value: unknown, depth = 0): Json {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (depth >= MAX_JSON_DEPTH) return '[nested too deep: cut by the Reins bridge]';
  if (Array.isArray(value)) return value.map((entry) => boundedJson(entry, depth + 1));
  if (typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [key, entry] of Object.entries(value)) {
      if (entry !== undefined) out[key] = boundedJson(entry, depth + 1);
    }
    return out;
  }
  return String(value);
}
