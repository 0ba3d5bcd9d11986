// A Codex conversation as history items: thread/items/list for the items, thread/turns/list for how
// each turn ended. Codex 0.171.0 stores an interrupted turn's partial answer as a completed item with no
// marker, so the turn's status is what says it was interrupted (or failed); history keeps it so.
import { type Item, type ItemStatus, ReinsError } from '@reins/core';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { HARNESS } from './connection.js';
import { toItem } from './translate.js';
import type { ThreadItem, ThreadItemsListResponse, ThreadTurnsListResponse, TurnStatus } from './wire.js';

const PAGE = 200;

/** A thread item as a history item; undefined for kinds Reins has no item for. */
export function historyItem(entry: ThreadItem): Item | undefined {
  let item: Item | undefined;
  try {
    item = toItem(entry);
  } catch {
    return undefined; // a kind this Reins does not know: history lists only what it can show
  }
  if (item?.kind !== 'user_message') return item;
  // The clientUserMessageId Reins sent on turn/start comes back as the item's clientId (0.169.0, 0.171.0).
  const clientId = (entry as { clientId?: unknown }).clientId;
  return { ...item, replay: true, ...(typeof clientId === 'string' && clientId ? { clientMessageId: clientId } : {}) };
}

/** What an item of a turn that ended this way is, when it says it completed (or never finished). */
const ENDED_AS: Partial<Record<TurnStatus, ItemStatus>> = { interrupted: 'cancelled', failed: 'failed' };

/**
 * The items of a turn that was interrupted or failed: what the harness did is kept (the user's
 * message stays as sent), but nothing the agent produced in it reads as completed.
 */
export function withTurnOutcome(item: Item, turnStatus: TurnStatus | undefined): Item {
  // Own names only: the status is Codex's, and a table answers inherited names ("constructor") too.
  const ended = turnStatus && Object.hasOwn(ENDED_AS, turnStatus) ? ENDED_AS[turnStatus] : undefined;
  if (!ended || item.kind === 'user_message' || (item.status !== 'completed' && item.status !== 'running')) return item;
  return { ...item, status: ended } as Item;
}

export async function readHistory(peer: JsonRpcPeer, threadId: string): Promise<Item[]> {
  const entries: Array<{ turnId: string; item: Item }> = [];
  let cursor: string | null = null;
  do {
    let page: ThreadItemsListResponse;
    try {
      page = await peer.request<ThreadItemsListResponse>('thread/items/list', {
        threadId,
        limit: PAGE,
        ...(cursor ? { cursor } : {}),
      });
    } catch (error) {
      throw new ReinsError(
        'invalid_input',
        `Codex has no readable history for session ${threadId}: ${ReinsError.from(error, 'protocol_error').message}`,
        { harness: HARNESS, operation: 'thread/items/list', cause: error },
      );
    }
    for (const entry of page.data) {
      const item = historyItem(entry.item);
      if (item) entries.push({ turnId: entry.turnId, item });
    }
    cursor = page.nextCursor;
  } while (cursor);
  const statuses = await turnStatuses(peer, threadId);
  return entries.map(({ turnId, item }) => withTurnOutcome(item, statuses.get(turnId)));
}

/** Each turn's status; empty when the app-server cannot list turns (the items are shown as stored). */
async function turnStatuses(peer: JsonRpcPeer, threadId: string): Promise<Map<string, TurnStatus>> {
  const statuses = new Map<string, TurnStatus>();
  let cursor: string | null = null;
  try {
    do {
      const page: ThreadTurnsListResponse = await peer.request<ThreadTurnsListResponse>('thread/turns/list', {
        threadId,
        limit: PAGE,
        itemsView: 'notLoaded',
        ...(cursor ? { cursor } : {}),
      });
      for (const turn of page.data) statuses.set(turn.id, turn.status);
      cursor = page.nextCursor;
    } while (cursor);
  } catch {
    // An app-server without thread/turns/list (before 0.169.0): no outcomes to add.
  }
  return statuses;
}
