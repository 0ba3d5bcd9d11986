// Invariants every adapter test checks on a session's events (DESIGN.md principles 3-4): seq starts
// at 1 and has no gaps, and each turn that started ends with exactly one turn.completed.
import type { ReinsEvent } from '@reins/core';

/** Throws with a readable list of what is wrong; returns the turn.completed events by turn id. */
export function assertEventInvariants(
  events: readonly ReinsEvent[],
): Map<string, ReinsEvent & { type: 'turn.completed' }> {
  const problems: string[] = [];
  events.forEach((event, index) => {
    if (event.seq !== index + 1)
      problems.push(`event ${index} (${event.type}) has seq ${event.seq}, expected ${index + 1}`);
  });
  const started = new Set<string>();
  const completed = new Map<string, ReinsEvent & { type: 'turn.completed' }>();
  for (const event of events) {
    if (event.type === 'turn.started' && event.turnId) {
      if (started.has(event.turnId)) problems.push(`turn ${event.turnId} started twice`);
      started.add(event.turnId);
    }
    if (event.type === 'turn.completed') {
      if (!event.turnId) problems.push('turn.completed without a turn id');
      else if (completed.has(event.turnId)) problems.push(`turn ${event.turnId} completed twice`);
      else completed.set(event.turnId, event);
    }
  }
  for (const turnId of started) if (!completed.has(turnId)) problems.push(`turn ${turnId} never completed`);
  for (const turnId of completed.keys())
    if (!started.has(turnId)) problems.push(`turn ${turnId} completed but never started`);
  if (problems.length > 0) throw new Error(`event invariants broken:\n- ${problems.join('\n- ')}`);
  return completed;
}

/** Reads events until `until` matches one (inclusive) or the deadline passes; never hangs a test. */
export async function collectUntil(
  iterator: AsyncIterator<ReinsEvent>,
  sink: ReinsEvent[],
  until: (event: ReinsEvent) => boolean,
  timeoutMs = 10_000,
): Promise<ReinsEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`no matching event within ${timeoutMs} ms; last: ${describe(sink.at(-1))}`);
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), remaining);
      }),
    ]);
    clearTimeout(timer);
    if (next === 'timeout') throw new Error(`no matching event within ${timeoutMs} ms; last: ${describe(sink.at(-1))}`);
    if (next.done) throw new Error(`event stream ended before a matching event; last: ${describe(sink.at(-1))}`);
    sink.push(next.value);
    if (until(next.value)) return next.value;
  }
}

function describe(event: ReinsEvent | undefined): string {
  return event ? `${event.seq} ${event.type}` : 'none';
}
