// thread/revert (Codex 0.171.0: the thread's history becomes the prefix before `beforeTurnId`) on
// Reins' Session.revert: served where the thread's session keeps checkpoints AND its harness takes the
// conversation back (the capability matrix's `revert`); the files that turn and later ones changed go
// back too, which Codex leaves alone (docs/architecture/bridges.md, "Conformance"). Where only the files
// could go back, the request is refused before anything changes: the model would still remember turns
// the client no longer shows.
import { ReinsError } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import type { RecordStore } from '../records.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import type { BridgeThread } from './thread.js';
import { RPC, type Thread } from './wire.js';

/** What thread/revert needs of the bridge (thread-admin.ts's context serves it). */
export interface RevertContext {
  threads: Map<string, BridgeThread>;
  records: RecordStore;
  harness: string;
  requestTimeoutMs: number;
  /** Whether the harness's adapter takes the conversation back (the capability matrix). */
  conversationReverts: () => Promise<boolean>;
  /** The thread as thread/read answers it, without turns. */
  threadOf: (threadId: string) => Promise<Thread>;
}

/** The Reins turn that opened a Codex turn: the first remembered under its id (the map keeps order). */
export function firstReinsTurnOf(codexIds: Map<string, string>, codexTurnId: string): string | undefined {
  for (const [reins, codex] of codexIds) if (codex === codexTurnId) return reins;
  return undefined;
}

/** Forgets the id mapping of `codexTurnId` and every Codex turn after it. */
function forgetFrom(codexIds: Map<string, string>, codexTurnId: string): void {
  let cutting = false;
  for (const [reins, codex] of [...codexIds]) {
    cutting ||= codex === codexTurnId;
    if (cutting) codexIds.delete(reins);
  }
}

export async function revertThread(
  context: RevertContext,
  params: Record<string, unknown>,
): Promise<{ thread: Thread; turnsBackwardsCursor: null; itemsBackwardsCursor: null }> {
  const threadId = requiredString(params, 'threadId');
  const beforeTurnId = requiredString(params, 'beforeTurnId');
  const thread = context.threads.get(threadId);
  if (!thread) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
  const revert = thread.session.revert?.bind(thread.session);
  const operation = 'thread/revert';
  if (!revert)
    throw new ReinsError(
      'unsupported_capability',
      `Thread ${threadId} keeps no checkpoints (its folder is not in a git work tree, or checkpoints are off), so Reins cannot take it back to before a turn; nothing changed.`,
      { harness: context.harness, operation },
    );
  if (!(await context.conversationReverts()))
    throw new ReinsError(
      'unsupported_capability',
      `The ${context.harness} harness cannot drop turns from its conversation (Reins puts back only the files there), so thread/revert is refused and nothing changed: the model would still remember the turns.`,
      { harness: context.harness, operation },
    );
  if (thread.state.turn)
    throw new RpcError(RPC.invalidRequest, 'a turn is running on this thread; revert once it ends', { threadId });
  const reinsTurnId = firstReinsTurnOf(thread.state.codexIds, beforeTurnId);
  if (!reinsTurnId)
    throw new RpcError(
      RPC.invalidRequest,
      `turn ${beforeTurnId} is not one this thread's open session ran; only those can be reverted`,
      { threadId, beforeTurnId },
    );
  const result = await withDeadline(revert(reinsTurnId), context.requestTimeoutMs, operation);
  forgetFrom(thread.state.codexIds, beforeTurnId);
  // `forked`: the session goes on in a new conversation, which is the thread's from now on.
  if (result.conversation === 'forked' && thread.session.nativeSessionId)
    thread.state.nativeSessionId = thread.session.nativeSessionId;
  await context.records.update(threadId, (known) => {
    if (!known) return undefined;
    const cut = known.turns.findIndex((turn) => turn.id === beforeTurnId);
    const turns = cut === -1 ? known.turns : known.turns.slice(0, cut);
    const nativeSessionId = thread.state.nativeSessionId ?? known.nativeSessionId;
    return { ...known, turns, updatedAtMs: Date.now(), ...(nativeSessionId ? { nativeSessionId } : {}) };
  });
  thread.emit([{ method: 'thread/reverted', params: { threadId } }]);
  return { thread: await context.threadOf(threadId), turnsBackwardsCursor: null, itemsBackwardsCursor: null };
}
