// What a gateway writes for a session whose worker is gone (an "orphan"): marking it `lost` and
// ending the turn it was running (failed, process_exited, its open items closed) with a notice
// saying why; and, for a lost session, a close, a delete or a setting kept for the next resume,
// which need no harness process. Every write first wins the session's record (compare-and-set on
// its revision: of the gateways that find a worker gone, exactly one marks each session), then
// appends to the log expecting its newest event, looking again if someone wrote meanwhile.
import type { EventPayload, ReinsEvent } from '@reins/core';
import { CrashedTurn } from '../daemon-events.js';
import type { Logger } from '../logger.js';
import type { StoredSession } from '../store/store.js';
import { type EventStream, isFenced } from './event-stream.js';
import { casPut, isWrongLastSequence, type NatsCluster, type RetryOptions, retrying } from './nats.js';
import { type ClusterSessionRecord, decodeRecord } from './records.js';

export interface OrphanContext {
  nats: NatsCluster;
  stream: EventStream;
  log: Logger;
  retry: RetryOptions;
  /** How long a worker may miss heartbeats, for the notice. */
  heartbeatTtlMs: number;
}

/** A record read fresh, with its revision. */
export interface CurrentRecord {
  record: ClusterSessionRecord;
  revision: number;
}

export async function readRecord(context: OrphanContext, sessionId: string): Promise<CurrentRecord | undefined> {
  const entry = await retrying(() => context.nats.sessions.get(sessionId), context.retry);
  const record = entry?.operation === 'PUT' ? decodeRecord(entry.value) : undefined;
  return entry && record ? { record, revision: entry.revision } : undefined;
}

/** Writes `next` over the record at `revision`; undefined when someone else wrote first. */
export async function replaceRecord(
  context: OrphanContext,
  next: ClusterSessionRecord,
  revision: number,
): Promise<number | undefined> {
  try {
    return await casPut(context.nats.sessions, next.session.sessionId, JSON.stringify(next), revision, context.retry);
  } catch (error) {
    if (isWrongLastSequence(error)) return undefined;
    throw error;
  }
}

export function lostNotice(worker: string, heartbeatTtlMs: number): EventPayload {
  return {
    type: 'notice',
    kind: 'warning',
    message: `The Reins worker ${worker} that held this session is gone (no heartbeat for ${Math.round(heartbeatTtlMs / 1000)} s); the session is lost, and the next send resumes its conversation on a worker whose labels match.`,
    data: { lost: { worker } },
  };
}

const LOST_TURN_MESSAGE = (worker: string) =>
  `The Reins worker ${worker} that ran this turn is gone (killed, crashed or cut off), and its harness process with it.`;

/**
 * Marks the session lost if it still is `current` (its holder gone), then ends its running turn
 * and says why in its log. False when another member changed the record first.
 */
export async function markLost(context: OrphanContext, current: CurrentRecord): Promise<boolean> {
  const { record } = current;
  const lost: ClusterSessionRecord = { ...record, status: 'lost', lostAt: Date.now() };
  const revision = await replaceRecord(context, lost, current.revision);
  if (revision === undefined) return false;
  const open = record.session.openTurn;
  await appendAs(context, record.session, async (newest) => {
    const payloads: Array<{ payload: EventPayload; turnId: string | null }> = [];
    if (open && newest >= open.seq) {
      const scan = new CrashedTurn(open);
      await readLog(context, record.session.sessionId, open.seq - 1, newest, (event) => scan.observe(event));
      for (const payload of scan.closing(LOST_TURN_MESSAGE(record.worker)))
        payloads.push({ payload, turnId: open.turnId });
    }
    payloads.push({ payload: lostNotice(record.worker, context.heartbeatTtlMs), turnId: null });
    return payloads;
  });
  const { openTurn: _ended, ...session } = lost.session;
  await replaceRecord(context, { ...lost, session, lostSettled: true }, revision);
  context.log.warn('session lost: its worker is gone', { sessionId: record.session.sessionId, worker: record.worker });
  return true;
}

/** Closes a lost session: its record says closed, its log ends with session.closed. */
export async function closeOrphan(context: OrphanContext, current: CurrentRecord): Promise<boolean> {
  const now = Date.now();
  const { openTurn: _none, ...session } = current.record.session;
  const closed: ClusterSessionRecord = {
    ...current.record,
    status: 'closed',
    session: { ...session, state: 'closed', closedAt: now, updatedAt: now },
  };
  if ((await replaceRecord(context, closed, current.revision)) === undefined) return false;
  await appendAs(context, current.record.session, async () => [
    { payload: { type: 'session.closed', reason: 'requested' }, turnId: null },
  ]);
  return true;
}

/** Forgets a session nobody holds: its record, then its events. */
export async function deleteOrphan(context: OrphanContext, current: CurrentRecord): Promise<boolean> {
  const sessionId = current.record.session.sessionId;
  try {
    await retrying(() => context.nats.sessions.delete(sessionId, { previousSeq: current.revision }), context.retry);
  } catch (error) {
    if (isWrongLastSequence(error)) return false;
    throw error;
  }
  await context.stream.purge(sessionId);
  return true;
}

/** Keeps a model or effort change in a lost session's spec, for the resume. */
export async function changeOrphanSetting(
  context: OrphanContext,
  current: CurrentRecord,
  change: { model: string } | { effort: string },
): Promise<boolean> {
  const session = { ...current.record.session, spec: { ...current.record.session.spec, ...change } } as StoredSession;
  return (await replaceRecord(context, { ...current.record, session }, current.revision)) !== undefined;
}

/**
 * Appends what `build` says (given the newest seq) with the daemon's envelope, expecting that
 * newest event: when someone wrote meanwhile, it looks again (a few times).
 */
async function appendAs(
  context: OrphanContext,
  session: StoredSession,
  build: (newestSeq: number) => Promise<Array<{ payload: EventPayload; turnId: string | null }>>,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const newest = await context.stream.tail(session.sessionId);
    const newestSeq = newest?.seq ?? 0;
    const payloads = await build(newestSeq);
    const at = Date.now();
    const entries = payloads.map(({ payload, turnId }, index) => {
      const event = {
        ...payload,
        seq: newestSeq + 1 + index,
        harness: session.harness,
        sessionId: session.sessionId,
        turnId,
        at,
      };
      return { seq: event.seq, json: JSON.stringify(event) };
    });
    try {
      await context.stream.append(session.sessionId, entries, newest?.streamSeq ?? 0);
      return;
    } catch (error) {
      if (!isFenced(error)) throw error;
    }
  }
  context.log.error('could not write to a lost session: its log kept moving', { sessionId: session.sessionId });
}

async function readLog(
  context: OrphanContext,
  sessionId: string,
  afterSeq: number,
  upTo: number,
  each: (event: ReinsEvent) => void,
): Promise<void> {
  let after = afterSeq;
  while (after < upTo) {
    const page = await context.stream.read(sessionId, after, 500);
    if (page.length === 0) return;
    for (const stored of page) {
      after = stored.seq;
      try {
        each(JSON.parse(stored.json) as ReinsEvent);
      } catch {
        // a stored event that is not JSON cannot have opened an item
      }
    }
  }
}
