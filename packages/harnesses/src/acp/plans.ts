// ACP `plan` updates as plan items: each plan frame is a complete snapshot, so each becomes one plan item,
// started and settled at once. Pure.
import { type EventPayload, type Item, isRecord, type PlanEntry as ReinsPlanEntry } from '@reins/core';
import { closeText } from './message-chunks.js';
import { freshId, type TranslateState } from './translate-state.js';

function planEntries(entries: unknown): ReinsPlanEntry[] {
  if (!Array.isArray(entries)) return [];
  return entries.filter(isRecord).map((entry) => {
    const out: ReinsPlanEntry = {
      text: typeof entry.content === 'string' ? entry.content : '',
      status: entry.status === 'completed' || entry.status === 'in_progress' ? entry.status : 'pending',
    };
    if (entry.priority === 'high' || entry.priority === 'medium' || entry.priority === 'low')
      out.priority = entry.priority;
    return out;
  });
}

/** One plan snapshot -> a plan item, started and completed; a frame without entries passes through. */
export function planSnapshot(state: TranslateState, update: Record<string, unknown>): EventPayload[] {
  if (!Array.isArray(update.entries)) return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  const item: Item = {
    kind: 'plan',
    id: freshId(state, 'plan'),
    status: 'completed',
    entries: planEntries(update.entries),
  };
  return [
    ...closeText(state),
    { type: 'item.started', item: { ...item, status: 'running' } },
    { type: 'item.completed', item },
  ];
}
