// thread/fork, served where the harness implements fork (server.ts checks the capability matrix).
// A Reins fork (spec.resume.fork) is the harness's own: a NEW conversation holding a copy of the
// whole source conversation. So the only fork point is the source's last turn, a thread file
// (`path`) has no Reins meaning, and the other params are thread/start's (requests.ts
// threadRequestOf) over the source's cwd and model. The fork's record takes the source's turn
// records, so its stored turns read as the source's did (ids, statuses, errors: history.ts finds
// each again by its first input); until the fork has a transcript of its own, reads.ts reads the
// source's.
import type { SessionSpec } from '@reins/core';
import type { RecordStore, SessionRecord } from '../records.js';
import { type ReadContext, turnsOf } from './reads.js';
import {
  optionalString,
  ParamsError,
  requiredString,
  type ThreadDefaults,
  type ThreadRequest,
  threadRequestOf,
} from './requests.js';
import type { BridgeThread } from './thread.js';
import type { ThreadForkResponse, Turn } from './wire.js';

export interface ForkRequest {
  /** The source thread. */
  threadId: string;
  /** The answer's thread.turns stays empty (the client reads thread/turns/list instead). */
  excludeTurns: boolean;
  lastTurnId?: string;
}

export function forkRequestOf(params: Record<string, unknown>): ForkRequest {
  const threadId = requiredString(params, 'threadId');
  // Codex: a non-empty path wins over threadId; an empty one counts as absent.
  const path = params.path;
  if (path !== undefined && path !== null && path !== '') {
    throw new ParamsError('path', 'the Reins bridge keeps no thread files; fork by threadId.');
  }
  if (params.excludeTurns !== undefined && typeof params.excludeTurns !== 'boolean') {
    throw new ParamsError('excludeTurns', 'must be true or false.');
  }
  const lastTurnId = optionalString(params, 'lastTurnId');
  return { threadId, excludeTurns: params.excludeTurns === true, ...(lastTurnId ? { lastTurnId } : {}) };
}

/**
 * `lastTurnId` may name only the source's last turn, once it has ended: a harness copies the whole
 * conversation, so forking through an earlier turn would keep turns the client asked to leave out.
 */
export function checkForkPoint(turns: Turn[] | undefined, request: ForkRequest): void {
  if (request.lastTurnId === undefined) return;
  const list = turns ?? [];
  const index = list.findIndex((turn) => turn.id === request.lastTurnId);
  if (index === -1) throw new ParamsError('lastTurnId', `names no turn of thread ${request.threadId}.`);
  if (list[index]?.status === 'inProgress') {
    throw new ParamsError('lastTurnId', 'that turn is still in progress; fork once it has ended.');
  }
  const last = list[list.length - 1] as Turn;
  if (index !== list.length - 1) {
    throw new ParamsError(
      'lastTurnId',
      `a Reins harness forks the whole conversation, so only its last turn (${last.id}) can be named.`,
    );
  }
}

/** The fork's record with what it inherits from the source's: its turns and preview. */
export function forkRecordOf(fork: SessionRecord | undefined, source: SessionRecord | undefined) {
  if (!fork) return undefined;
  return {
    ...fork,
    turns: source?.turns ?? fork.turns,
    ...(source?.preview && !fork.preview ? { preview: source.preview } : {}),
  };
}

/** What thread/fork needs of the bridge (server.ts). */
export interface ForkContext {
  threads: ReadonlyMap<string, BridgeThread>;
  records: RecordStore;
  reads: ReadContext;
  defaults: (model?: string) => ThreadDefaults;
  /** The conversation behind a thread (`recorded`: its record's native id); refuses one it cannot name. */
  nativeIdOf: (threadId: string, recorded: string | undefined) => string;
  open: (
    request: ThreadRequest,
    how: { resume: SessionSpec['resume']; forkedFromId: string },
  ) => Promise<{ thread: BridgeThread; release: () => void }>;
  answer: (thread: BridgeThread, turns: Turn[]) => Promise<ThreadForkResponse>;
}

/**
 * thread/fork: a new thread on a copy of the source's conversation (spec.resume.fork), under the new
 * conversation's id. It runs on the source's cwd, model, effort and posture unless the params name
 * others; the answer (and thread/started, without turns, as on thread/start) goes out like a start's.
 */
export async function forkThread(context: ForkContext, params: Record<string, unknown>): Promise<ThreadForkResponse> {
  const fork = forkRequestOf(params);
  const source = context.threads.get(fork.threadId);
  const record = await context.records.get(fork.threadId);
  const nativeId = context.nativeIdOf(fork.threadId, record?.nativeSessionId);
  if (fork.lastTurnId) checkForkPoint(await turnsOf(context.reads, fork.threadId, 'notLoaded'), fork);
  const defaults = context.defaults(source?.state.model ?? record?.model);
  const request = threadRequestOf(
    { cwd: source?.state.cwd ?? record?.cwd ?? defaults.cwd, ...params },
    { ...defaults, posture: source?.request.posture ?? defaults.posture },
  );
  const { thread, release } = await context.open(request, {
    resume: { nativeSessionId: nativeId, fork: true },
    forkedFromId: fork.threadId,
  });
  try {
    thread.state.effort ??= source?.state.effort ?? record?.effort;
    if (!request.ephemeral) await context.records.update(thread.id, (known) => forkRecordOf(known, record));
    const turns = fork.excludeTurns ? [] : ((await turnsOf(context.reads, thread.id, 'full')) ?? []);
    const answer = await context.answer(thread, turns);
    thread.emit([{ method: 'thread/started', params: { thread: { ...answer.thread, turns: [] } } }]);
    return answer;
  } finally {
    release();
  }
}
