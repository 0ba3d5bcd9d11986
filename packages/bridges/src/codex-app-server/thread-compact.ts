// thread/compact/start (the Codex TUI's `/compact`) on Reins' Session.compact: Codex 0.171.0 answers {}
// and runs the compaction as a turn of its own (turn/started, one contextCompaction item, turn/completed,
// no userMessage; docs/harnesses/codex.md, "Compaction"); the bridge shows the session's compaction turn
// the same way (docs/architecture/contract.md, "Compaction"). A harness with no compaction on request is
// refused with a sentence the TUI shows where /compact was typed.
import { ReinsError } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import { RPC } from './wire.js';

export interface CompactContext {
  threads: Map<string, BridgeThread>;
  harness: string;
  requestTimeoutMs: number;
}

export async function compactThread(
  context: CompactContext,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  const threadId = requiredString(params, 'threadId');
  const thread = context.threads.get(threadId);
  // Codex 0.169.0: "thread not found: <id>".
  if (!thread) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
  const compact = thread.session.compact?.bind(thread.session);
  if (!compact)
    throw new ReinsError(
      'unsupported_capability',
      `The ${context.harness} harness cannot be asked to compact its conversation: it compacts its context by itself when it fills (the thread shows a context compaction item when it does); nothing changed.`,
      { harness: context.harness, operation: 'thread/compact/start' },
    );
  if (thread.state.turn)
    throw new RpcError(RPC.invalidRequest, 'a turn is running on this thread; compact once it ends', { threadId });
  // The client hears this answer before the compaction turn's turn/started.
  const release = thread.hold();
  thread.state.compactionAsked = true;
  try {
    await withDeadline(compact(), context.requestTimeoutMs, 'compact');
  } catch (error) {
    thread.state.compactionAsked = false;
    throw error;
  } finally {
    release();
  }
  return {};
}
