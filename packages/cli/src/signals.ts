// What `reins run` and `reins chat` do when they are told to stop from outside (SIGTERM from a
// supervisor or a timeout, SIGHUP from a closed terminal): close the session, so every harness
// process stops, then exit 128 + the signal number. Without a listener Node dies at once and its
// 'exit' hook (the runtime's SIGKILL of each harness process group) never runs: a Claude Code
// 2.1.332 process outlived a SIGTERMed `reins run` with parent pid 1.
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
