// The bound on a line of the stdio bridges' input, and the request id read from an over-long line. A
// client may send one message too long to take (a huge pasted image); the bridge must answer it, not
// die: the shared LineSplitter (@reins/harnesses) drops the line whole, keeps its first bytes, and
// the rest of the stream goes on. Memory stays bounded by the limit, however long the line.

/** The longest line the bridges take (a base64 image of ~48 MiB fits). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * The top-level `"id"` of a JSON object from the start of its text (a number or a string), or
 * undefined when the start does not show it: the id may come after a field the prefix cut off, and a
 * nested `"id"` (inside params) is not the request's.
 */
export function leadingId(prefix: string): number | string | undefined {
  let depth = 0;
  let index = 0;
  const skipString = (): string | undefined => {
    // index is at the opening quote
    let out = '';
    for (index++; index < prefix.length; index++) {
      const char = prefix[index] as string;
      if (char === '\\') {
        const next = prefix[index + 1];
        if (next === undefined) return undefined;
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
        index++;
        continue;
      }
      if (char === '"') {
        index++;
        return out;
      }
      out += char;
    }
    return undefined;
  };
  const skipSpace = () => {
    while (index < prefix.length && /\s/.test(prefix[index] as string)) index++;
  };
  skipSpace();
  if (prefix[index] !== '{') return undefined;
  let expectKey = false;
  while (index < prefix.length) {
    const char = prefix[index] as string;
    if (char === '"') {
      const atKey = depth === 1 && expectKey;
      const text = skipString();
      if (text === undefined) return undefined;
      if (atKey) {
        skipSpace();
        if (prefix[index] !== ':') return undefined;
        index++;
        skipSpace();
        if (text === 'id') {
          if (prefix[index] === '"') return skipString();
          const number = /^-?\d+/.exec(prefix.slice(index));
          return number ? Number(number[0]) : undefined;
        }
        expectKey = false;
      }
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      expectKey = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return undefined;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
    }
    index++;
  }
  return undefined;
}
