// Session.compact on Pi (docs/architecture/contract.md, "Compaction"): the RPC `compact` command
// (0.73.1). Pi runs it outside any agent run (no agent_start / agent_end): its compaction_start and
// compaction_end events make the turn's compaction item (translate.ts), and the command's answer, which
// comes after compaction_end, ends the turn; Pi's refusal ("Nothing to compact (session too small)")
// fails it with Pi's own words.

import type { EventPayload } from '@reins/core';
import { ReinsError } from '@reins/core';
import type { PiCommandChannel } from './commands.js';
import type { PiTranslateState } from './state.js';
import { failTurn, settleTurn } from './turn-end.js';

export async function compactPi(
  channel: PiCommandChannel,
  state: PiTranslateState,
  emit: (payloads: EventPayload[]) => void,
  /** Whether the turn is still Reins' running one and Pi still lives (else the exit path ends it). */
  current: () => boolean,
): Promise<void> {
  try {
    // No command deadline: the summary is a model call; the stall watchdog bounds the turn.
    await channel.request({ type: 'compact' }, { timeoutMs: Number.POSITIVE_INFINITY, failureCode: 'invalid_input' });
  } catch (error) {
    if (current()) emit(failTurn(state, ReinsError.from(error, 'protocol_error', { harness: 'pi' }).toInfo()));
    return;
  }
  if (!current()) return;
  state.pendingEnd = { outcome: { status: 'completed' } };
  emit(settleTurn(state));
}
