// Newline-delimited input for both stdio bridges, with a bound on a line. A client may send one
// message too long to take (a huge pasted image); the bridge must answer it, not die: the line is
// dropped whole (only its first bytes are kept, to read the request id from them) and the rest of the
// stream goes on. Memory stays bounded by the limit, however long the line.

/** The longest line the bridges take (a base64 image of ~48 MiB fits). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** How much of an over-long line is kept to find its id. */
const KEPT_PREFIX_BYTES = 64 * 1024;

export interface OverlongLine {
  /** The start of the line (up to 64 KiB), decoded as UTF-8. */
  prefix: string;
  /** How many bytes the line had. */
  bytes: number;
}

export interface LineReaderOptions {
  onLine: (line: string) => void;
  onOverlong: (line: OverlongLine) => void;
  maxLineBytes?: number;
}

/** Splits a byte stream into UTF-8 lines (`\n`, a trailing `\r` removed); over-long lines go to onOverlong. */
export class LineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes of the current line seen so far, once it is known to be too long. */
  private overlong: { prefix: Buffer; bytes: number } | undefined;
  private readonly max: number;

  constructor(private readonly options: LineReaderOptions) {
    this.max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without its newline still counts. */
  flush(): void {
    if (this.length > 0 || this.overlong) this.endLine();
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.overlong) {
      this.overlong.bytes += part.length;
      return;
    }
    if (this.length + part.length <= this.max) {
      this.chunks.push(part);
      this.length += part.length;
      return;
    }
    const line = Buffer.concat([...this.chunks, part]);
    this.overlong = { prefix: Buffer.from(line.subarray(0, KEPT_PREFIX_BYTES)), bytes: line.length };
    this.chunks = [];
    this.length = 0;
  }

  private endLine(): void {
    if (this.overlong) {
      const { prefix, bytes } = this.overlong;
      this.overlong = undefined;
      this.options.onOverlong({ prefix: prefix.toString('utf8'), bytes });
      return;
    }
    let line = Buffer.concat(this.chunks).toString('utf8');
    this.chunks = [];
    this.length = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.options.onLine(line);
  }
}

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
