// What both stdio bridges share about running as a process and answering within deadlines: request
// timeouts, capability checks, and the shutdown sequence (stop on stdin end or a signal, then close
// every session within a grace period).
import { type CapabilityKey, type CapabilityMatrix, ReinsError } from '@reins/core';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** A person answers permission requests: give them time. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 10 * 60_000;

export type StopReason = 'eof' | NodeJS.Signals;

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

export function isImplemented(matrix: CapabilityMatrix | undefined, key: CapabilityKey): boolean {
  return matrix?.[key]?.implemented.state === 'yes';
}

/** Work with a deadline. A late result is handed to `onLate` (so a late session still gets closed). */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  what: string,
  onLate?: (value: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new ReinsError('timeout', `${what} did not finish within ${timeoutMs} ms.`, { operation: what }));
    }, timeoutMs);
  });
  work.then(
    (value) => {
      if (timedOut) onLate?.(value);
    },
    () => {},
  );
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until the client goes away (`eof` resolves) or a stop signal arrives, then runs `close` for at
 * most `graceMs`; what a slow close leaves behind, the runtime's exit hook SIGKILLs at process exit.
 */
export async function runUntilStopped(
  eof: Promise<void>,
  close: () => Promise<void>,
  graceMs: number,
  announce?: (reason: StopReason) => void,
): Promise<StopReason> {
  const handlers = new Map<NodeJS.Signals, () => void>();
  const reason = await new Promise<StopReason>((resolve) => {
    void eof.then(() => resolve('eof'));
    for (const signal of SIGNALS) {
      const handler = () => resolve(signal);
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
  });
  announce?.(reason);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    close(),
    new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs);
    }),
  ]);
  clearTimeout(timer);
  for (const [signal, handler] of handlers) process.off(signal, handler);
  return reason;
}
