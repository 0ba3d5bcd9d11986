// session/diff and session/revert on a hosted session (docs/architecture/daemon.md, "Checkpoints"):
// the live harness process keeps its own turns' checkpoints, and the daemon's turn ids carry the
// process's generation (envelope.ts), so an id is mapped back to the process's own before the call
// and the answer's ids are mapped forward again. Turns of earlier processes (or of a session with no
// live process, after a daemon restart too) are found from the stored checkpoint events and their refs.
import {
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type Session,
  type SessionDiff,
} from '@reins/core';
import { CheckpointHistory, checkpointEntries, hasCheckpointRefs } from '@reins/harnesses';
import { generationId } from './envelope.js';
import type { SessionHandle } from './session-directory.js';
import type { PublishedEvent } from './session-log.js';

/** What these methods need of a hosted session. */
export interface CheckpointedSession {
  id: string;
  harness: string;
  cwd: string;
  /** The running harness process, if any. */
  live: LiveProcess | undefined;
  /** A turn is running or queued. */
  turnOpen: boolean;
  read(afterSeq: number, limit: number): Promise<PublishedEvent[]>;
}

export function diffSession(session: CheckpointedSession, turnId: string | undefined): Promise<SessionDiff> {
  const { live } = session;
  if (live && (turnId === undefined || processTurnId(turnId, live.generation) !== undefined)) {
    return diffOn(live, session.id, turnId);
  }
  return storedHistory(session).then((history) => history.diff(turnId));
}

export async function revertSession(
  session: CheckpointedSession,
  turnId: string,
  options: RevertOptions,
): Promise<RevertResult> {
  const { live } = session;
  if (live && processTurnId(turnId, live.generation) !== undefined) return revertOn(live, session.id, turnId, options);
  if (session.turnOpen) {
    throw new ReinsError(
      'invalid_input',
      'A turn is running or queued; wait for it to end (or interrupt it) before reverting, so the files stay still.',
      { harness: session.harness, operation: 'revert', data: { sessionId: session.id, reason: 'turn_running' } },
    );
  }
  return (await storedHistory(session)).revert(turnId, options);
}

/** Deletes every checkpoint ref the session's events name (the session is being deleted or forgotten). */
export async function forgetCheckpoints(session: CheckpointedSession): Promise<void> {
  if (!(await hasCheckpointRefs(session.cwd))) return; // most sessions: no log to read
  await (await storedHistory(session)).forget();
}

/** The session's checkpoint events, every process's, as a history of refs. */
async function storedHistory(session: CheckpointedSession): Promise<CheckpointHistory> {
  const events: ReinsEvent[] = [];
  for (let afterSeq = 0; ; ) {
    const page = await session.read(afterSeq, 1000);
    const last = page.at(-1);
    if (!last) break;
    for (const { event } of page) if (event.type === 'checkpoint') events.push(event);
    afterSeq = last.seq;
  }
  return new CheckpointHistory({ harness: session.harness, cwd: session.cwd, entries: checkpointEntries(events) });
}

/** The live process of a hosted session, as these methods need it. */
export interface LiveProcess {
  session: Session;
  generation: number;
}

/** The process's own id for the daemon turn id, or undefined when the turn belongs to another process. */
export function processTurnId(turnId: string, generation: number): string | undefined {
  if (generation === 0) return /^r\d+\./.test(turnId) ? undefined : turnId;
  const prefix = `r${generation}.`;
  return turnId.startsWith(prefix) ? turnId.slice(prefix.length) : undefined;
}

/** A session handle's checkpoint methods, or unsupported_capability naming what serves them. */
export function checkpointsOf(handle: Handle, method: string): Required<Handle> {
  const { diff, revert } = handle;
  if (diff && revert) return { diff: diff.bind(handle), revert: revert.bind(handle) };
  throw new ReinsError(
    'unsupported_capability',
    `This daemon does not serve ${method}: ask the daemon that runs the session's harness (not a cluster gateway).`,
    { operation: method },
  );
}
type Handle = Pick<SessionHandle, 'diff' | 'revert'>;

export async function diffOn(live: LiveProcess, sessionId: string, turnId: string | undefined): Promise<SessionDiff> {
  const { session, generation } = live;
  if (!session.diff) throw noCheckpoints(session, 'diff');
  const own = turnId === undefined ? undefined : ownTurn(turnId, generation, sessionId);
  const diff = await session.diff(own);
  return { ...diff, ...(diff.turnId !== undefined ? { turnId: generationId(diff.turnId, generation) } : {}) };
}

export async function revertOn(
  live: LiveProcess,
  sessionId: string,
  turnId: string,
  options: RevertOptions,
): Promise<RevertResult> {
  const { session, generation } = live;
  if (!session.revert) throw noCheckpoints(session, 'revert');
  const result = await session.revert(ownTurn(turnId, generation, sessionId), options);
  return { ...result, turnId: generationId(result.turnId, generation) };
}

function ownTurn(turnId: string, generation: number, sessionId: string): string {
  const own = processTurnId(turnId, generation);
  if (own !== undefined) return own;
  throw new ReinsError(
    'invalid_input',
    `Turn ${turnId} ran in an earlier harness process of session ${sessionId}; its checkpoints stay on the git refs, but only the current process's turns can be diffed or reverted.`,
    { operation: 'revert', data: { sessionId, turnId, reason: 'no_checkpoint' } },
  );
}

function noCheckpoints(session: Session, operation: string): ReinsError {
  return new ReinsError('unsupported_capability', `The ${session.harness} adapter keeps no checkpoints.`, {
    harness: session.harness,
    operation,
  });
}
