// ACP `compaction_update` as compaction items: an upsert per compactionId (started once, completed once);
// a status this SDK does not name passes through. Pure.
import type { EventPayload, Item, ItemStatus } from '@reins/core';
import { closeText } from './message-chunks.js';
import type { TranslateState } from './translate-state.js';

/** compaction_update: one item per compactionId, started once (in_progress) and completed once. */
export function compaction(state: TranslateState, update: Record<string, unknown>): EventPayload[] {
  if (typeof update.compactionId !== 'string') return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  const status: ItemStatus | undefined =
    update.status === 'in_progress'
      ? 'running'
      : update.status === 'completed'
        ? 'completed'
        : update.status === 'failed'
          ? 'failed'
          : update.status === 'cancelled'
            ? 'cancelled'
            : undefined;
  // CompactionStatus is open ("custom or future statuses"): one this SDK does not name passes through.
  if (status === undefined) return [{ type: 'passthrough', frame: update, reason: 'unknown' }];
  state.compactions ??= new Map();
  const seen = state.compactions.get(update.compactionId);
  const item: Item = { kind: 'compaction', id: `compaction_${update.compactionId}`, status };
  if (status === 'running') {
    // A later in_progress upsert patches the same compaction: nothing new for the item.
    if (seen) return [{ type: 'passthrough', frame: update }];
    state.compactions.set(update.compactionId, 'started');
    return [...closeText(state), { type: 'item.started', item }];
  }
  if (seen === 'completed') return [{ type: 'passthrough', frame: update, reason: 'duplicate' }];
  state.compactions.set(update.compactionId, 'completed');
  return [...closeText(state), { type: 'item.completed', item }];
}
