// Pure translation of ACP traffic into Reins event payloads: `session/update` notifications,
// permission requests and the `session/prompt` answer. No process, no I/O: the adapter feeds
// frames in and emits what comes out through its SessionEventStream.
//
// Item rules:
// - agent_message / reasoning items open on the first non-empty chunk and complete when another
//   item starts (a different text kind, a tool call, a plan) or when the turn ends.
// - Every tool_call / tool_call_update for one toolCallId is ONE tool_call item. An update for an
//   unknown id opens the item (Gemini CLI 0.61.0 sends its shell tool as permission request +
//   tool_call_update with no tool_call first). An update without a title or name keeps the
//   established ones. Input comes from rawInput whenever it arrives (claude-agent-acp 0.23.1 sends
//   `rawInput: {}` on tool_call and the real input only in the next update).
// - Updates that arrive outside a turn are history replayed by session/load or session/resume:
//   user messages are marked `replay: true` and nothing of it opens a turn.
// - A compaction_update is an upsert (one item per compactionId: started once, completed once).
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what an agent sends. An update kind or enum value newer than the pinned SDK
// passes through with reason `unknown` (a tool kind becomes `other`); an update whose fields lack the
// schema's types passes through with reason `unparsable`; fields of the wrong type are left out, never
// guessed (absent is not zero). This file dispatches and keeps the turn's lifecycle; the parts: text
// items in message-chunks.ts, tool calls and permissions in tool-calls.ts, plans.ts, compactions.ts,
// reported-settings.ts, usage.ts, and the state they share in translate-state.ts.
import { type ErrorInfo, type EventPayload, isRecord, type TurnOutcome } from '@reins/core';
import { providerError } from '../runtime/chassis/provider-failure.js';
import { compaction } from './compactions.js';
import { closeText, textChunk } from './message-chunks.js';
import { planSnapshot } from './plans.js';
import { sessionUpdatedFrom, settingsFromConfigOptions } from './reported-settings.js';
import { permissionPayloads, toolUpdate } from './tool-calls.js';
import type { ProviderErrorMatch, TranslateState } from './translate-state.js';
import { usageFromUpdate } from './usage.js';
import type { PermissionOption, SessionUpdate } from './wire.js';

export { settingsFromConfigOptions } from './reported-settings.js';
export {
  jsonText,
  permissionOptions,
  pickPermissionOption,
  toolKindOf,
  wholeFileDiff,
} from './tool-calls.js';
export {
  createTranslateState,
  type ProviderErrorMatch,
  type StatusChunk,
  type ToolState,
  type TranslateOptions,
  type TranslateState,
} from './translate-state.js';
export { turnTokens, usageFromUpdate } from './usage.js';

/**
 * Resets the per-turn parts at the start of a turn. Returns the completions of items that arrived
 * between turns (history replay, late chatter) and were still open, so none is left dangling.
 */
export function beginTurn(state: TranslateState): EventPayload[] {
  const leftovers = finishReplay(state);
  state.openText = undefined;
  state.tools.clear();
  state.turnText = '';
  state.lastAgentText = '';
  state.providerError = undefined;
  state.turnUpdates = 0;
  return leftovers;
}

export interface UpdateContext {
  /** True while a prompt is running; false means the update is history replay or idle chatter. */
  inTurn: boolean;
}

const NOTICE_KIND: Record<string, 'info' | 'warning'> = { info: 'info', warning: 'warning', error: 'warning' };

const TURN_OUTPUT = new Set<string>([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

/** One `session/update` notification -> event payloads. Unknown kinds come back as passthrough. */
export function translateUpdate(state: TranslateState, update: SessionUpdate, context: UpdateContext): EventPayload[] {
  const record = update as unknown as Record<string, unknown>;
  if (!isRecord(record) || typeof record.sessionUpdate !== 'string') {
    return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  }
  const replay = !context.inTurn;
  const kind = record.sessionUpdate;
  // Only the turn's own output counts: agents also send chatter (available commands, config) at any time.
  if (context.inTurn && TURN_OUTPUT.has(kind)) state.turnUpdates++;
  switch (kind) {
    case 'user_message_chunk':
      return textChunk(state, 'user_message', record, replay);
    case 'agent_message_chunk':
      return textChunk(state, 'agent_message', record, replay);
    case 'agent_thought_chunk':
      return textChunk(state, 'reasoning', record, replay);
    case 'tool_call':
    case 'tool_call_update':
      return toolUpdate(state, record, () => closeText(state));
    case 'plan':
      return planSnapshot(state, record);
    case 'usage_update': {
      const usage = usageFromUpdate(record);
      return Object.keys(usage).length > 0
        ? [{ type: 'usage.updated', ...usage }]
        : [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
    }
    case 'session_info_update':
      return typeof record.title === 'string'
        ? sessionUpdatedFrom(state, { title: record.title })
        : [{ type: 'passthrough', frame: update }];
    case 'current_mode_update': {
      if (typeof record.currentModeId !== 'string') {
        return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
      }
      const out = sessionUpdatedFrom(state, { mode: record.currentModeId });
      return out.length > 0 ? out : [{ type: 'passthrough', frame: update }];
    }
    case 'config_option_update': {
      const out = sessionUpdatedFrom(state, settingsFromConfigOptions(record.configOptions));
      return out.length > 0 ? out : [{ type: 'passthrough', frame: update }];
    }
    case 'notice': {
      if (typeof record.title !== 'string') return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
      const description = typeof record.description === 'string' ? record.description : undefined;
      const severity = typeof record.severity === 'string' ? record.severity : undefined;
      return [
        {
          type: 'notice',
          // NoticeSeverity is open ("custom or future severities"): one ACP does not name is info.
          kind: (severity !== undefined && Object.hasOwn(NOTICE_KIND, severity) && NOTICE_KIND[severity]) || 'info',
          message: description ? `${record.title}: ${description}` : record.title,
          data: { severity: typeof record.severity === 'string' ? record.severity : null },
        },
      ];
    }
    case 'compaction_update':
      return compaction(state, record);
    // No normalized field for these: commands are not tools, the rest is unstable draft protocol.
    case 'available_commands_update':
    case 'compaction_summary_chunk':
    case 'plan_update':
    case 'plan_removed':
    case 'subagent_update':
    case 'session_message':
    case 'session_message_chunk':
      return [{ type: 'passthrough', frame: update }];
    default:
      // A kind newer than this SDK's schema (the agent may be newer).
      return [{ type: 'passthrough', frame: update, reason: 'unknown' }];
  }
}

/** Closes what a replay left open (session/load, session/resume) so every replayed item is settled. */
export function finishReplay(state: TranslateState): EventPayload[] {
  const out = closeText(state);
  for (const tool of state.tools.values()) {
    if (tool.settled) continue;
    tool.settled = true;
    out.push({ type: 'item.completed', item: { ...tool.item, tool: { ...tool.item.tool }, status: 'cancelled' } });
  }
  state.tools.clear();
  return out;
}

/**
 * Text items still open at turn end are completed here; tool calls the agent left unsettled are
 * closed by the event stream with the outcome's status (cancelled / failed).
 */
export function endTurn(state: TranslateState): EventPayload[] {
  const out = closeText(state);
  state.tools.clear();
  return out;
}

/**
 * The outcome of a prompt's stopReason. A reason newer than the pinned SDK (or none) still means the agent
 * ended the prompt normally (errors come as JSON-RPC errors): completed, with the value kept by the caller.
 */
export function outcomeOf(stopReason: unknown): TurnOutcome {
  return stopReason === 'cancelled' ? { status: 'cancelled' } : { status: 'completed' };
}

/** A permission request -> the tool item (when the agent never announced it) and permission.requested. */
export function translatePermission(
  state: TranslateState,
  requestId: string,
  toolCall: Record<string, unknown>,
  options: PermissionOption[] | readonly unknown[],
): { payloads: EventPayload[]; itemId: string | undefined } {
  return permissionPayloads(
    state,
    requestId,
    isRecord(toolCall) ? toolCall : {},
    Array.isArray(options) ? options : [],
    () => closeText(state),
  );
}

/**
 * A provider failure as a turn error: the shared rules of runtime/chassis/provider-failure.ts (a 404
 * or "model not found" words are `unsupported_model`, 401/403 `auth_required`, the rest
 * `provider_error`). Gemini CLI 0.61.0 relabels the provider's 404 as JSON-RPC 500 but keeps its words.
 */
export function providerFailure(
  match: ProviderErrorMatch,
  data: Record<string, unknown> = {},
  model?: string,
): ErrorInfo {
  return providerError(match, data, model);
}
