// Waiting on a harness's answer without being held by a deaf harness: the caller hears back when the
// answer came or a short window passed (the request was written at once; what follows is up to the
// escalation that owns the outcome: the chassis's interrupt grace timer ends a turn the harness keeps).

/** How long the chassis's `interrupt()` waits for the harness's answer (docs/architecture/contract.md, "Turn rules"). */
export const INTERRUPT_ANSWER_WINDOW_MS = 500;

/** Settles with `answer` if it settles within `ms`, else resolves; a later rejection is ignored. */
export async function answerWithin(answer: Promise<void>, ms = INTERRUPT_ANSWER_WINDOW_MS): Promise<void> {
  answer.catch(() => {});
  let window: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    window = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([answer, elapsed]);
  } finally {
    clearTimeout(window);
  }
}
