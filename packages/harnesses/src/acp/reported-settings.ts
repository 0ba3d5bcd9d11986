// Model, effort, mode and title as an ACP agent reports them (config options, mode and session-info
// updates) -> session.updated, only when something changed. Pure.
import { type EventPayload, isRecord } from '@reins/core';
import type { TranslateState } from './translate-state.js';
import type { SessionConfigOption } from './wire.js';

/** Model, effort and mode as the agent's config options state them (categories model, thought_level, mode). */
export function settingsFromConfigOptions(options: SessionConfigOption[] | null | undefined | unknown): {
  model?: string;
  effort?: string;
  mode?: string;
} {
  const out: { model?: string; effort?: string; mode?: string } = {};
  for (const option of Array.isArray(options) ? options : []) {
    if (!isRecord(option) || option.type !== 'select') continue;
    const value = option.currentValue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    if (option.category === 'model') out.model = String(value);
    else if (option.category === 'thought_level') out.effort = String(value);
    else if (option.category === 'mode') out.mode = String(value);
  }
  return out;
}

export function sessionUpdatedFrom(
  state: TranslateState,
  next: { model?: string; effort?: string; mode?: string; title?: string },
): EventPayload[] {
  const payload: EventPayload & { type: 'session.updated' } = { type: 'session.updated' };
  let changed = false;
  for (const key of ['model', 'effort', 'mode'] as const) {
    const value = next[key];
    if (value !== undefined && state.current[key] !== value) {
      state.current[key] = value;
      payload[key] = value;
      changed = true;
    }
  }
  if (next.title !== undefined) {
    payload.title = next.title;
    changed = true;
  }
  return changed ? [payload] : [];
}
