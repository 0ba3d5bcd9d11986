// Session.compact on Codex (docs/harnesses/codex.md, "Compaction"): `thread/compact/start` answers {} and
// Codex runs the compaction as a turn of its own (turn/started, a contextCompaction item,
// turn/completed), whose native id the adapter learns from turn/started like any turn's.
import { ReinsError } from '@reins/core';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { HARNESS } from './connection.js';
import type { CodexTurnPlan } from './turn-plan.js';
import type { DeliveredTurn, NativeTurns } from './turns.js';
import type { ThreadCompactStartParams } from './wire/generated/v2/ThreadCompactStartParams.js';

/** A compaction turn sends no input. */
export const COMPACTION_PLAN: CodexTurnPlan = { input: [], strict: undefined };

export async function startCompaction(
  peer: JsonRpcPeer,
  turns: NativeTurns<CodexTurnPlan>,
  delivered: DeliveredTurn<CodexTurnPlan>,
  threadId: string,
): Promise<void> {
  const params: ThreadCompactStartParams = { threadId };
  try {
    await peer.request('thread/compact/start', params);
  } catch (error) {
    delivered.abandoned = true;
    turns.accepted(delivered, undefined);
    throw ReinsError.from(error, 'protocol_error', { harness: HARNESS, operation: 'thread/compact/start' });
  }
  turns.accepted(delivered, undefined);
}
