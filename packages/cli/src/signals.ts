// What `reins run` and `reins chat` do when they are told to stop from outside (SIGTERM from a
// supervisor or a timeout, SIGHUP from a closed terminal): close the session, so every harness
// process stops, then exit 128 + the signal number. Without a listener Node dies at once and its
// 'exit' hook (the runtime's SIGKILL of each harness process group) never runs: a Claude Code
// 2.1.332 process outlived a SIGTERMed `reins run` with parent pid 1.
// `reins demo` and `reins conformance` (cleanUpOnSignals) have no turn to interrupt: SIGINT too runs
// what they registered (close the sessions, remove the temporary folders), then exits 128 + n.
import type { Session } from '@reins/core';

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGTERM: 15 } as const;
type TerminationSignal = keyof typeof SIGNAL_NUMBERS;

export interface Termination {
  /** 128 + the number of the signal that stopped the command; undefined while none came. */
  readonly exitCode: number | undefined;
  /** Removes the handlers (once the session is closed). */
  dispose(): void;
}

/**
 * The first SIGTERM or SIGHUP closes the session and calls `stop` (so the command can end its input
 * and return normally, with the closing events written); the command then exits with `exitCode`.
 * A second one exits at once (the runtime's exit hook SIGKILLs what is left).
 */
export function closeOnTermination(session: Session, stop: () => void = () => {}): Termination {
  let exitCode: number | undefined;
  const handlers = new Map<TerminationSignal, () => void>();
  for (const signal of Object.keys(SIGNAL_NUMBERS) as TerminationSignal[]) {
    const code = 128 + SIGNAL_NUMBERS[signal];
    const handler = () => {
      if (exitCode !== undefined) process.exit(code);
      exitCode = code;
      stop();
      session.close().catch(() => {});
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  return {
    get exitCode() {
      return exitCode;
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}

const CLEANUP_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type CleanupSignal = keyof typeof CLEANUP_SIGNALS;

export interface SignalCleanups {
  /** Registers work to undo if a signal stops the command; the returned function unregisters it. */
  add(cleanup: () => Promise<void>): () => void;
  /**
   * Removes the handlers once the command has ended and undone its work itself. After a signal it
   * never resolves: the cleanups are running and the handler exits with the signal's code, so the
   * command, whose sessions the cleanups just closed, must not end the process with its own.
   */
  dispose(): Promise<void>;
}

/**
 * The first SIGINT, SIGTERM or SIGHUP runs every registered cleanup (together: one hung close must
 * not keep the folders of the others), then exits 128 + the signal number; a second one exits at
 * once (the runtime's exit hook SIGKILLs every harness process group that is left).
 */
export function cleanUpOnSignals(): SignalCleanups {
  const cleanups = new Set<() => Promise<void>>();
  const handlers = new Map<CleanupSignal, () => void>();
  let stopping = false;
  for (const signal of Object.keys(CLEANUP_SIGNALS) as CleanupSignal[]) {
    const code = 128 + CLEANUP_SIGNALS[signal];
    const handler = () => {
      if (stopping) process.exit(code);
      stopping = true;
      const work = [...cleanups].map((cleanup) => cleanup().catch(() => {}));
      void Promise.all(work).then(() => process.exit(code));
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  return {
    add(cleanup) {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    dispose() {
      if (stopping) return new Promise<void>(() => {});
      for (const [signal, handler] of handlers) process.off(signal, handler);
      return Promise.resolve();
    },
  };
}
