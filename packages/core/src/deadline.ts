// The one deadline helper of Reins (browser-safe): every request to a harness, every probe and every
// bridge call waits at most this long, then fails with `timeout` naming what it waited for.
import { ReinsError, type ReinsErrorOptions } from './errors.js';

export interface DeadlineOptions extends Pick<ReinsErrorOptions, 'harness' | 'operation'> {
  /** Gets a result that arrived after the deadline (so a late session or process can still be closed). */
  onLate?: (value: unknown) => void;
}

/** `work`, or a `timeout` ReinsError ("<what> did not finish within N ms.") when it takes longer. */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  what: string,
  options: DeadlineOptions = {},
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(
        new ReinsError('timeout', `${what} did not finish within ${timeoutMs} ms.`, {
          operation: options.operation ?? what,
          ...(options.harness ? { harness: options.harness } : {}),
        }),
      );
    }, timeoutMs);
  });
  work.then(
    (value) => {
      if (timedOut) options.onLate?.(value);
    },
    () => {},
  );
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
