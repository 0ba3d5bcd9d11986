// A linear pre-check of a harness line before JSON.parse: V8 parses deeply nested JSON some 200x
// slower per byte than flat text (24 MB of nested arrays: 19 s, flat: 0.2 s), and a harness's line is
// parsed on the event loop every session shares. A line that nests absurdly deep is not parsed at
// all (docs/architecture/contract.md, "The guard").
import { type TruncatedValue, truncatedValue } from '@reins/core';

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

/** What is shown in place of a line too deep to parse: a marker saying what was there. */
export function tooDeepMarker(line: string): TruncatedValue {
  return truncatedValue(`a line of ${line.length} characters nested deeper than ${MAX_LINE_DEPTH} levels`);
}

/**
 * A harness line parsed behind the depth pre-check: the value, or what to show as the unparsable
 * frame instead (the line itself when it is not JSON, the marker when it nests too deep to parse).
 */
export type ParsedLine = { parsed: true; value: unknown } | { parsed: false; shown: unknown };

export function parseHarnessLine(line: string): ParsedLine {
  if (isTooDeepToParse(line)) return { parsed: false, shown: tooDeepMarker(line) };
  try {
    return { parsed: true, value: JSON.parse(line) };
  } catch {
    return { parsed: false, shown: line };
  }
}
