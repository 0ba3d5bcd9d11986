// Where a session's events start in the events stream (pure, the I/O injected). The stream numbers
// every session's messages together, so "the events after seq 4 200 of session S" has to be found:
// a session's messages carry rising seqs in stream order (a worker writes them one after the other,
// each expecting the one before), so bisecting stream sequences finds the first one after a seq
// with about log2(stream length) direct gets of single messages, whatever the session's size.

/** A message of the session's subject: where it is in the stream, and its session seq. */
export interface Located {
  streamSeq: number;
  seq: number;
}

/** The first message of the subject at stream sequence >= `from` (undefined: none). */
export type NextOnSubject = (from: number) => Promise<Located | undefined>;

/** Stream sequence of the first message with seq > `afterSeq`, looking within [low, high]. */
export async function locateAfter(
  afterSeq: number,
  low: number,
  high: number,
  next: NextOnSubject,
): Promise<number | undefined> {
  if (afterSeq <= 0) {
    const first = await next(low);
    return first && first.streamSeq <= high ? first.streamSeq : undefined;
  }
  let found: number | undefined;
  let lo = low;
  let hi = high;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const message = await next(mid);
    if (!message || message.streamSeq > hi) {
      hi = mid - 1;
    } else if (message.seq > afterSeq) {
      // It, or one before it (none of this subject between mid and it), is the first after.
      found = message.streamSeq;
      hi = mid - 1;
    } else {
      lo = message.streamSeq + 1;
    }
  }
  return found;
}
