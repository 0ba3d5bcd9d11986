// Session.revert on Codex: the files through the session's checkpoints, the conversation through
// `thread/revert` (Codex 0.171.0: the thread's history becomes the prefix before `beforeTurnId`,
// that turn and every later one dropped; it does not touch files, Reins' checkpoints do that).
import { ReinsError, type RevertOptions, type RevertResult } from '@reins/core';
import type { SessionChassis } from '../runtime/chassis/index.js';
import { sessionRevert } from '../runtime/checkpoints/index.js';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { HARNESS } from './connection.js';
import type { NativeTurns } from './turns.js';
import type { ThreadRevertParams } from './wire/generated/v2/ThreadRevertParams.js';

export interface CodexRevertContext<Plan> {
  chassis: SessionChassis<Plan>;
  turns: NativeTurns<Plan>;
  threadId: string | undefined;
  peer: () => JsonRpcPeer;
}

export function revertCodexTurn<Plan>(
  context: CodexRevertContext<Plan>,
  turnId: string,
  options: RevertOptions,
): Promise<RevertResult> {
  return sessionRevert(context.chassis, HARNESS, turnId, options, async ([first]) => {
    const beforeTurnId = first === undefined ? undefined : context.turns.nativeIdOf(first);
    if (!context.threadId || !beforeTurnId) {
      throw new ReinsError(
        'invalid_input',
        `Codex never named its own id for ${first ?? turnId}, so Reins cannot take the conversation back before it; nothing was reverted.`,
        { harness: HARNESS, operation: 'revert', data: { reason: 'no_native_turn' } },
      );
    }
    const params: ThreadRevertParams = { threadId: context.threadId, beforeTurnId };
    await context.peer().request('thread/revert', params);
    return 'reverted';
  });
}
