// The thread requests that change no conversation: thread/unsubscribe (the thread's harness session
// closes; the conversation stays on disk for thread/resume), thread/name/set (the bridge's own
// name for a thread, kept in its records; the harness keeps its title) and thread/archive /
// thread/unarchive (a mark in the records that thread/list honours; the harness's files stay). Also where
// thread/revert (thread-revert.ts) and thread/compact/start (thread-compact.ts) join the server's handlers.
import { withDeadline } from '../lifecycle.js';
import type { RecordStore } from '../records.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import { compactThread } from './thread-compact.js';
import { revertThread } from './thread-revert.js';
import { RPC, type Thread, type ThreadUnsubscribeResponse } from './wire.js';

/** What these requests need of the bridge. */
export interface ThreadsContext {
  threads: Map<string, BridgeThread>;
  records: RecordStore;
  requestTimeoutMs: number;
  /** Writes what the records keep of a thread. */
  remember: (thread: BridgeThread) => Promise<void>;
  /** A thread as thread/read answers it without turns (open or stored). */
  threadOf: (threadId: string) => Promise<Thread>;
  /** A notification to every client (as Codex tells every client of an archive). */
  notify: (method: 'thread/archived' | 'thread/unarchived', params: { threadId: string }) => void;
  harness: string;
  /** Whether the harness's adapter takes a conversation back (thread-revert.ts). */
  conversationReverts: () => Promise<boolean>;
}

export async function unsubscribeThread(
  context: ThreadsContext,
  params: Record<string, unknown>,
): Promise<ThreadUnsubscribeResponse> {
  const threadId = requiredString(params, 'threadId');
  const thread = context.threads.get(threadId);
  if (!thread) return { status: 'notLoaded' };
  context.threads.delete(threadId);
  await context.remember(thread);
  await withDeadline(thread.close(), context.requestTimeoutMs, 'close');
  return { status: 'unsubscribed' };
}

export async function setThreadName(
  context: ThreadsContext,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  const threadId = requiredString(params, 'threadId');
  const name = requiredString(params, 'name');
  const thread = context.threads.get(threadId);
  const record = await context.records.get(threadId);
  // Codex 0.169.0: "thread not found: <id>".
  if (!thread && !record) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
  if (thread) {
    thread.state.title = name;
    thread.emit([{ method: 'thread/name/updated', params: { threadId, threadName: name } }]);
    await context.remember(thread);
  } else {
    await context.records.update(threadId, (known) =>
      known ? { ...known, name, updatedAtMs: Date.now() } : undefined,
    );
  }
  return {};
}

/** Marks a thread archived or not; only a thread the bridge made or opened has a record to mark. */
async function markArchived(context: ThreadsContext, threadId: string, archived: boolean): Promise<void> {
  const thread = context.threads.get(threadId);
  if (thread) await context.remember(thread);
  let found = false;
  await context.records.update(threadId, (known) => {
    if (!known) return undefined;
    found = true;
    const { archivedAtMs: _previous, ...rest } = known;
    return { ...rest, ...(archived ? { archivedAtMs: Date.now() } : {}), updatedAtMs: Date.now() };
  });
  if (!found)
    throw new RpcError(
      RPC.invalidRequest,
      `thread not found: ${threadId} (the bridge archives the threads it made or opened; resume it once first)`,
      { threadId },
    );
}

export async function archiveThread(
  context: ThreadsContext,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  const threadId = requiredString(params, 'threadId');
  await markArchived(context, threadId, true);
  context.notify('thread/archived', { threadId });
  return {};
}

export async function unarchiveThread(
  context: ThreadsContext,
  params: Record<string, unknown>,
): Promise<{ thread: Thread }> {
  const threadId = requiredString(params, 'threadId');
  await markArchived(context, threadId, false);
  context.notify('thread/unarchived', { threadId });
  return { thread: await context.threadOf(threadId) };
}

/** The thread requests on an open or stored thread, by method (server.ts spreads them into its handlers). */
export function threadAdminHandlers(
  context: () => ThreadsContext,
): Record<string, (params: Record<string, unknown>) => Promise<unknown>> {
  return {
    'thread/unsubscribe': (params) => unsubscribeThread(context(), params),
    'thread/name/set': (params) => setThreadName(context(), params),
    'thread/archive': (params) => archiveThread(context(), params),
    'thread/unarchive': (params) => unarchiveThread(context(), params),
    'thread/revert': (params) => revertThread(context(), params),
    'thread/compact/start': (params) => compactThread(context(), params),
  };
}
