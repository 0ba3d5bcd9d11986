// A linear pre-check of a harness line before JSON.parse: V8 parses deeply nested JSON some 200x
// slower per byte than flat text (24 MB of nested arrays: 19 s, flat: 0.2 s), and a harness's line is
// parsed on the event loop every session shares. A line that nests absurdly deep is not parsed at
// all (docs/architecture/contract.md, "The guard").

/** Deeper than this, a harness line is not parsed (real frames nest a few dozen levels). */
export const MAX_LINE_DEPTH = 1_000;
/** Shorter lines are parsed without the scan: even fully nested they parse in a few ms. */
export const DEPTH_SCAN_FROM = 16 * 1024;

/** Whether the JSON text nests arrays and objects deeper than `limit` (strings skipped). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92)
        index++; // a backslash: the next character is escaped
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 || code === 123) {
      if (++depth > limit) return true;
    } else if (code === 93 || code === 125) depth--;
  }
  return false;
}

/** Whether a harness line should not be parsed: long and nested deeper than MAX_LINE_DEPTH. */
export function isTooDeepToParse(line: string): boolean {
  return line.length >= DEPTH_SCAN_FROM && nestsDeeperThan(line, MAX_LINE_DEPTH);
}
