// The read-only methods: thread/list, thread/read, thread/turns/list, thread/items/list,
// thread/loaded/list and model/list. They read the harness's own conversations (listSessions,
// history), the bridge's records and the threads it has open; none of them starts a harness session.
import type { Harness, Item, ModelInfo, SessionSummary } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import type { RecordStore, SessionRecord } from '../records.js';
import {
  listThreads,
  modelOf,
  sortDirectionOf,
  storedThreadFacts,
  type ThreadFacts,
  threadListQueryOf,
  threadObject,
} from './catalog.js';
import { RpcError } from './connection.js';
import { historyTurns, itemsInView, recordedInputs, storedInputs } from './history.js';
import { ParamsError, requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import {
  type ModelListResponse,
  RPC,
  type Thread,
  type ThreadItemsListResponse,
  type ThreadListResponse,
  type ThreadLoadedListResponse,
  type ThreadReadResponse,
  type ThreadTurnsListResponse,
  type Turn,
  type TurnItemsView,
} from './wire.js';

/** What the read methods need of the bridge. */
export interface ReadContext {
  harness: Harness;
  threads: ReadonlyMap<string, BridgeThread>;
  records: RecordStore;
  /** The bridge's own cwd (where a harness keeps the conversations of a thread that names none). */
  cwd: string;
  requestTimeoutMs: number;
  /** How long to wait for a transcript the harness is still writing. */
  historySettleMs: number;
  /** The native id behind a thread id (bridge-made ids map to one learned later). */
  nativeIdOf: (threadId: string) => string;
  /** A live thread's facts (model, status, ...). */
  liveFacts: (thread: BridgeThread) => ThreadFacts;
  log: (message: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The harness's stored items of a conversation. A harness may write its transcript after the turn's
 * end reached us (Claude Code 2.1.197 writes it late): while it holds fewer inputs than the record
 * says the conversation took, it is read again until `historySettleMs` has passed.
 */
export async function storedItems(
  context: ReadContext,
  nativeId: string,
  cwd: string,
  record: SessionRecord | undefined,
): Promise<Item[] | undefined> {
  const history = context.harness.history?.bind(context.harness);
  if (!history) return undefined;
  const expected = recordedInputs(record);
  const deadline = Date.now() + context.historySettleMs;
  for (let attempt = 0; ; attempt++) {
    const items = await withDeadline(history(nativeId, { cwd }), context.requestTimeoutMs, 'history');
    if (storedInputs(items) >= expected || Date.now() >= deadline) {
      if (storedInputs(items) < expected) {
        context.log(`the transcript of ${nativeId} holds ${storedInputs(items)} of ${expected} recorded inputs`);
      }
      return items;
    }
    await sleep(Math.min(50 * 2 ** attempt, 500));
  }
}

/**
 * A fork's conversation before it has a transcript of its own: the source's, which it holds a copy
 * of (Claude Code 2.1.197 and 2.1.332 write a fork's transcript only with its first turn).
 */
async function forkSourceItems(context: ReadContext, sourceId: string, cwd: string): Promise<Item[] | undefined> {
  const record = await context.records.get(sourceId);
  try {
    return await storedItems(context, record?.nativeSessionId ?? context.nativeIdOf(sourceId), cwd, record);
  } catch (error) {
    context.log(`the history of thread ${sourceId}, which a fork copies, could not be read: ${String(error)}`);
    return undefined;
  }
}

/** A thread's turns (stored ones, then the live one), each with its items in `view`. */
export async function turnsOf(
  context: ReadContext,
  threadId: string,
  view: TurnItemsView,
): Promise<Turn[] | undefined> {
  const live = context.threads.get(threadId);
  const record = await context.records.get(threadId);
  const cwd = live?.state.cwd ?? record?.cwd ?? context.cwd;
  let items: Item[] | undefined;
  try {
    items = await storedItems(context, context.nativeIdOf(threadId), cwd, record);
  } catch (error) {
    const forkedFrom = live?.state.forkedFromId ?? record?.forkedFromId;
    if (forkedFrom) items = await forkSourceItems(context, forkedFrom, cwd);
    else context.log(`the history of thread ${threadId} could not be read: ${String(error)}`);
  }
  if (items === undefined && !live && !record) return undefined;
  const turns = historyTurns(items ?? [], { threadId, cwd }, record, view);
  const open = live?.state.turn;
  if (open) {
    // The turn in progress as the bridge has it (the transcript may hold its first part already).
    const index = turns.findIndex((turn) => turn.id === open.id);
    const current: Turn = {
      id: open.id,
      rootTurnId: open.id,
      items: itemsInView(open.items, view),
      itemsView: view,
      status: 'inProgress',
      error: null,
      startedAt: Math.floor(open.startedAtMs / 1000),
      completedAt: null,
      durationMs: null,
    };
    if (index === -1) turns.push(current);
    else turns[index] = current;
  }
  return turns;
}

function notLoaded(threadId: string): RpcError {
  // Codex 0.171.0's words for a thread it cannot find.
  return new RpcError(RPC.invalidRequest, `thread not loaded: ${threadId}`, { threadId });
}

function pageOf<T>(list: T[], params: Record<string, unknown>, fallbackLimit: number) {
  const cursorValue = params.cursor;
  let start = 0;
  if (cursorValue !== undefined && cursorValue !== null) {
    const match = typeof cursorValue === 'string' ? /^reins:(\d+)$/.exec(cursorValue) : null;
    if (!match) throw new ParamsError('cursor', 'is not a cursor this bridge gave out.');
    start = Number(match[1]);
  }
  const limit = params.limit === undefined || params.limit === null ? fallbackLimit : params.limit;
  if (!Number.isInteger(limit) || (limit as number) < 0) throw new ParamsError('limit', 'must be a whole number.');
  const data = list.slice(start, start + (limit as number));
  const end = start + data.length;
  return { data, nextCursor: end < list.length ? `reins:${end}` : null, backwardsCursor: null };
}

function viewOf(value: unknown, fallback: TurnItemsView): TurnItemsView {
  if (value === undefined || value === null) return fallback;
  if (value !== 'notLoaded' && value !== 'summary' && value !== 'full') {
    throw new ParamsError('itemsView', 'must be "notLoaded", "summary" or "full".');
  }
  return value;
}

async function storedFacts(context: ReadContext, threadId: string): Promise<ThreadFacts | undefined> {
  const record = await context.records.get(threadId);
  const cwd = record?.cwd ?? context.cwd;
  let summary: SessionSummary | undefined;
  try {
    const sessions = (await context.harness.listSessions?.({ cwd })) ?? [];
    summary = sessions.find((session) => session.nativeSessionId === context.nativeIdOf(threadId));
  } catch (error) {
    context.log(`could not list the ${context.harness.id} conversations in ${cwd}: ${String(error)}`);
  }
  if (!record && !summary) return undefined;
  return storedThreadFacts(summary, record, threadId, context.harness.id);
}

export async function readThread(context: ReadContext, params: Record<string, unknown>): Promise<ThreadReadResponse> {
  const threadId = requiredString(params, 'threadId');
  const live = context.threads.get(threadId);
  let facts = live ? context.liveFacts(live) : await storedFacts(context, threadId);
  let turns: Turn[] = [];
  if (params.includeTurns === true || !facts) {
    const found = await turnsOf(context, threadId, 'full');
    if (!found || (!facts && found.length === 0)) throw notLoaded(threadId);
    facts ??= storedThreadFacts(undefined, undefined, threadId, context.harness.id);
    if (params.includeTurns === true) turns = found;
  }
  return { thread: threadObject(facts, turns) };
}

export async function listTurns(
  context: ReadContext,
  params: Record<string, unknown>,
): Promise<ThreadTurnsListResponse> {
  const threadId = requiredString(params, 'threadId');
  const turns = await turnsOf(context, threadId, viewOf(params.itemsView, 'summary'));
  if (!turns) throw notLoaded(threadId);
  if (sortDirectionOf(params.sortDirection, 'desc') === 'desc') turns.reverse();
  return pageOf(turns, params, 25);
}

export async function listItems(
  context: ReadContext,
  params: Record<string, unknown>,
): Promise<ThreadItemsListResponse> {
  const threadId = requiredString(params, 'threadId');
  const turnId = params.turnId;
  if (turnId !== undefined && turnId !== null && typeof turnId !== 'string')
    throw new ParamsError('turnId', 'must be a string.');
  const turns = await turnsOf(context, threadId, 'full');
  if (!turns) throw notLoaded(threadId);
  const entries = turns
    .filter((turn) => !turnId || turn.id === turnId)
    .flatMap((turn) =>
      turn.items.map((item) => ({
        turnId: turn.id,
        item,
        startedAtMs: (item as { startedAtMs?: number | null }).startedAtMs ?? null,
        completedAtMs: (item as { completedAtMs?: number | null }).completedAtMs ?? null,
      })),
    );
  if (sortDirectionOf(params.sortDirection, 'asc') === 'desc') entries.reverse();
  return pageOf(entries, params, 50);
}

export function listLoaded(context: ReadContext, params: Record<string, unknown>): ThreadLoadedListResponse {
  const { data, nextCursor } = pageOf([...context.threads.keys()], params, 100);
  return { data, nextCursor };
}

/**
 * thread/list: the threads open here, the conversations the harness keeps in every folder the
 * bridge knows of (its own cwd, the threads' and the records'; or the `cwd` filter's), and what the
 * bridge remembers, merged by id and then filtered, sorted and paged as asked.
 */
export async function listAllThreads(
  context: ReadContext,
  params: Record<string, unknown>,
): Promise<ThreadListResponse> {
  const query = threadListQueryOf(params);
  const records = await context.records.list();
  const byNative = new Map(records.map((record) => [record.nativeSessionId ?? record.id, record]));
  const cwds = new Set(
    query.cwd ?? [
      context.cwd,
      ...records.map((record) => record.cwd),
      ...[...context.threads.values()].map((thread) => thread.state.cwd),
    ],
  );
  const found = new Map<string, Thread>();
  const listSessions = context.harness.listSessions?.bind(context.harness);
  if (listSessions) {
    for (const cwd of cwds) {
      let sessions: SessionSummary[] = [];
      try {
        sessions = await withDeadline(listSessions({ cwd }), context.requestTimeoutMs, 'listSessions');
      } catch (error) {
        context.log(`could not list the ${context.harness.id} conversations in ${cwd}: ${String(error)}`);
      }
      for (const summary of sessions) {
        const record = byNative.get(summary.nativeSessionId);
        const id = record?.id ?? summary.nativeSessionId;
        found.set(id, threadObject(storedThreadFacts(summary, record, id, context.harness.id)));
      }
    }
  } else {
    // A harness that lists nothing: what the bridge made is all it can name.
    for (const record of records)
      found.set(record.id, threadObject(storedThreadFacts(undefined, record, record.id, context.harness.id)));
  }
  for (const thread of context.threads.values()) found.set(thread.id, threadObject(context.liveFacts(thread)));
  const archived = new Set(records.filter((record) => record.archivedAtMs !== undefined).map((record) => record.id));
  return listThreads([...found.values()], query, archived);
}

/** model/list: the harness's catalog (no harness catalog: no models). */
export async function listModels(
  catalog: ModelInfo[] | undefined,
  options: { provider: string; images: boolean; effort: Parameters<typeof modelOf>[2] },
  params: Record<string, unknown>,
): Promise<ModelListResponse> {
  const provider = params.modelProvider;
  if (provider !== undefined && provider !== null && typeof provider !== 'string') {
    throw new ParamsError('modelProvider', 'must be a string.');
  }
  // The harness is the only provider here: another provider has no models to list.
  const listed = typeof provider === 'string' && provider !== options.provider ? [] : (catalog ?? []);
  const models = listed.map((model) => modelOf(model, options.images, options.effort));
  const { data, nextCursor } = pageOf(models, params, 100);
  return { data, nextCursor };
}
