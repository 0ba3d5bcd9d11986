// Pure: fuzzyFileSearch's matcher. A query matches a path when its characters appear in the path in
// order (case-insensitive, spaces ignored), as Codex's picker matches; the score (higher is better)
// rewards runs of consecutive characters, matches at the start of a word or path segment, and a match
// inside the file name rather than its folders, so `zebra` ranks notes/zebra.txt above z/e/b/r/a.txt.

export interface FuzzyMatch {
  score: number;
  /** Positions (in characters) of the path that matched, ascending. */
  indices: number[];
}

const BOUNDARY = /[/\\_\-. ]/;

/** `chars` is the path split into characters (code points), as positions count them. */
function isWordStart(chars: readonly string[], at: number): boolean {
  if (at === 0) return true;
  const before = chars[at - 1] as string;
  const here = chars[at] as string;
  // A boundary character, or camelCase's lower-to-upper step.
  return BOUNDARY.test(before) || (before === before.toLowerCase() && here !== here.toLowerCase());
}

/**
 * Where `query` matches `path`, or null. Each query character takes the earliest position after the
 * previous one, unless that neither continues the current run nor starts a word and a later word
 * start still leaves room for the rest of the query.
 */
export function fuzzyMatch(query: string, path: string): FuzzyMatch | null {
  const needle = [...query.toLowerCase()].filter((char) => char !== ' ');
  if (needle.length === 0) return null;
  const chars = [...path];
  const lower = chars.map((char) => char.toLowerCase());
  const nameStart = Math.max(chars.lastIndexOf('/'), chars.lastIndexOf('\\')) + 1;
  const indices: number[] = [];
  let from = 0;
  for (const wanted of needle) {
    const first = lower.indexOf(wanted, from);
    if (first < 0) return null;
    let chosen = first;
    // A later word start is worth more than a scattered early hit, unless this one continues a run.
    const continues = indices.length > 0 && first === (indices.at(-1) as number) + 1;
    if (!continues && !isWordStart(chars, first)) {
      for (let at = first + 1; at < lower.length; at++) {
        if (lower[at] === wanted && isWordStart(chars, at) && hasRest(lower, at + 1, needle, indices.length + 1)) {
          chosen = at;
          break;
        }
      }
    }
    indices.push(chosen);
    from = chosen + 1;
  }
  return { score: scoreOf(chars, indices, nameStart), indices };
}

/** Whether the query's remaining characters still fit after `from`. */
function hasRest(lower: string[], from: number, needle: string[], next: number): boolean {
  let at = from;
  for (let index = next; index < needle.length; index++) {
    at = lower.indexOf(needle[index] as string, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

function scoreOf(chars: readonly string[], indices: number[], nameStart: number): number {
  let score = 0;
  for (const [position, at] of indices.entries()) {
    score += 16;
    if (position > 0 && at === (indices[position - 1] as number) + 1) score += 24;
    if (isWordStart(chars, at)) score += 20;
    if (at >= nameStart) score += 8;
  }
  // Shorter paths and tighter spans first among equals.
  const span = (indices.at(-1) as number) - (indices[0] as number) + 1;
  score -= Math.min(span - indices.length, 60);
  score -= Math.min(chars.length, 100) >> 2;
  return Math.max(score, 1);
}
