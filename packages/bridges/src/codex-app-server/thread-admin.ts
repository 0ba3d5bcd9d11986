// The thread requests that change no conversation: thread/unsubscribe (the thread's harness session
// closes; the conversation stays on disk for thread/resume) and thread/name/set (the bridge's own
// name for a thread, kept in its records; the harness keeps its title).
import { withDeadline } from '../lifecycle.js';
import type { RecordStore } from '../records.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import { RPC, type ThreadUnsubscribeResponse } from './wire.js';

/** What these requests need of the bridge. */
export interface ThreadsContext {
  threads: Map<string, BridgeThread>;
  records: RecordStore;
  requestTimeoutMs: number;
  /** Writes what the records keep of a thread. */
  remember: (thread: BridgeThread) => Promise<void>;
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
