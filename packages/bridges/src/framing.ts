// The bound on a line of the stdio bridges' input, and the request id read from an over-long line. A
// client may send one message too long to take (a huge pasted image); the bridge must answer it, not
// die: the shared LineSplitter (@reins/harnesses) drops the line whole, keeps its first bytes, and
// the rest of the stream goes on. Memory stays bounded by the limit, however long the line.
// On the way out, the lines of one turn of the event loop go out in one write (lineBatches).

import type { Writable } from 'node:stream';

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

/** Lines for a stream, written together: the lines of one turn of the event loop in one write. */
export interface LineBatches {
  /** Queues one line (the newline is added); it is written with the others of this turn. */
  write(line: string): void;
  /** Writes what is queued now (before the process exits, say). */
  flush(): void;
}

/**
 * Every write to a pipe is a system call that wakes the client, and a warm turn's frames come a few
 * at a time from one harness line (an answer, then its notifications): one write per frame cost a
 * bridge more CPU per warm turn than anything else it does. The lines queued during one turn of the
 * event loop are joined, in the order they were written, and written once when it ends (setImmediate
 * runs after the I/O callbacks and microtasks that produced them, before the loop waits again), so no
 * frame waits for later input. Nothing is written after `writable()` says the stream is gone.
 */
export function lineBatches(output: Writable, writable: () => boolean = () => true): LineBatches {
  let queued: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (queued.length === 0) return;
    const text = queued.length === 1 ? (queued[0] as string) : queued.join('');
    queued = [];
    if (writable()) output.write(text);
  };
  return {
    write(line) {
      queued.push(`${line}\n`);
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
