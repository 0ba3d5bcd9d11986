// What the daemon itself writes into a session's log, as event payloads (the session gives them
// the envelope): the notice when a session goes dormant (and why), the notice when a resume
// worked, the error when it did not, and the events that end a turn a killed daemon left running.
// Pure: the texts and `data` shapes live here, next to their tests.
import type { ErrorInfo, EventPayload, Item, PayloadOf, ReinsEvent } from '@reins/core';
import type { OpenTurn } from './store/store.js';

/** Why a session went dormant. */
export type DormantReason = 'shutdown' | 'idle' | 'lru' | 'process_ended';

const NEXT = 'the session is dormant and the next send resumes the conversation';

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

export function dormantNotice(
  reason: DormantReason,
  context: {
    harness: string;
    idleTtlMs: number;
    maxLiveSessions: number;
    /** The adapter's session.closed, when the process ended on its own. */
    closed?: PayloadOf<'session.closed'>;
  },
): EventPayload {
  const { harness, closed } = context;
  if (reason === 'process_ended') {
    const detail = closed?.error?.message ? `: ${closed.error.message}` : '';
    return {
      type: 'notice',
      kind: 'warning',
      message: `The ${harness} process ended (${closed?.reason ?? 'process_exited'}${detail}); ${NEXT}.`,
      data: { dormant: reason, ...(closed?.error ? { error: closed.error } : {}) },
    };
  }
  const why =
    reason === 'shutdown'
      ? 'The Reins daemon stopped'
      : reason === 'idle'
        ? `The ${harness} process was stopped after ${duration(context.idleTtlMs)} idle`
        : `The ${harness} process was stopped to stay within ${context.maxLiveSessions} live sessions (least recently used first)`;
  return { type: 'notice', kind: 'info', message: `${why}; ${NEXT}.`, data: { dormant: reason } };
}

export function resumedNotice(
  harness: string,
  nativeSessionId: string,
  generation: number,
  baseEnvDropped: boolean,
): EventPayload {
  const env = baseEnvDropped ? ' (without the base environment given at create: it is never stored)' : '';
  return {
    type: 'notice',
    kind: 'info',
    message: `Resumed the ${harness} conversation ${nativeSessionId} in a new process${env}.`,
    data: { resumed: { nativeSessionId, generation } },
  };
}

export function resumeFailedError(message: string): EventPayload {
  return { type: 'error', code: 'resume_failed', message, fatal: false };
}

/**
 * Reads the log from a turn that cannot end by itself (a killed daemon left it running, or the
 * store stopped taking its events) and says what closes it: each item left open completes
 * `failed`, then the turn ends `failed`. Nothing when the turn did end, or when its turn.started
 * is not in the log (a terminal is never logged without its start).
 */
export class CrashedTurn {
  private readonly items = new Map<string, Item>();
  private started = false;
  private ended = false;

  constructor(readonly open: OpenTurn) {}

  observe(event: ReinsEvent): void {
    if (event.turnId !== this.open.turnId) return;
    if (event.type === 'turn.started') this.started = true;
    else if (event.type === 'item.started') this.items.set(event.item.id, event.item);
    else if (event.type === 'item.completed') this.items.delete(event.item.id);
    else if (event.type === 'turn.completed') this.ended = true;
  }

  /**
   * `why` says why the turn cannot go on: an error, or the message of a process_exited (default:
   * the daemon was killed).
   */
  closing(
    why:
      | string
      | ErrorInfo = 'The Reins daemon ended (killed or crashed) while this turn ran, and its harness process with it.',
  ): EventPayload[] {
    if (this.ended || !this.started) return [];
    const error: ErrorInfo = typeof why === 'string' ? { code: 'process_exited', message: why } : why;
    return [
      ...[...this.items.values()].map(
        (item): EventPayload => ({ type: 'item.completed', item: { ...item, status: 'failed' } }),
      ),
      { type: 'turn.completed', outcome: { status: 'failed', error } },
    ];
  }
}
