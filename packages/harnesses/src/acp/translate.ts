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
// guessed (absent is not zero). Tool calls and permissions: tool-calls.ts.
import {
  classifyUserMessage,
  classifyUserText,
  type ErrorInfo,
  type EventPayload,
  type Item,
  type ItemStatus,
  isRecord,
  type ProviderErrorKind,
  type PlanEntry as ReinsPlanEntry,
  type TokenUsage,
  type TurnOutcome,
  type Usage,
} from '@reins/core';
import { providerError } from '../runtime/chassis/provider-failure.js';
import { blockText, permissionPayloads, type ToolState, toolUpdate } from './tool-calls.js';
import type { Usage as AcpUsage, PermissionOption, SessionConfigOption, SessionUpdate } from './wire.js';

export {
  jsonText,
  permissionOptions,
  pickPermissionOption,
  type ToolState,
  toolKindOf,
  wholeFileDiff,
} from './tool-calls.js';

type TextKind = 'agent_message' | 'reasoning' | 'user_message';

interface OpenText {
  id: string;
  kind: TextKind;
  text: string;
  /** OpenCode 1.18 tags chunks with a messageId; a new id starts a new item. */
  messageId?: string;
  replay: boolean;
}

export interface TranslateState {
  /** Counter for the item ids Reins makes up (ACP gives no ids to message chunks). */
  nextId: number;
  openText: OpenText | undefined;
  /** toolCallId -> state, for the current turn (or the current replay). */
  tools: Map<string, ToolState>;
  /** Item ids used so far, so a toolCallId reused in a later turn still gets a fresh item id. */
  usedIds: Set<string>;
  /** All agent text of the current turn, in order (structured output, provider-error detection). */
  turnText: string;
  /** The text of the last agent_message item of the current turn. */
  lastAgentText: string;
  /** A provider failure the agent reported as a status chunk in this turn (see TranslateOptions.statusChunk). */
  providerError: ProviderErrorMatch | undefined;
  /** Output updates (text, thoughts, tools, plans) in the current turn (claude-agent-acp empty-answer detection). */
  turnUpdates: number;
  /** What the agent last reported through config options / modes. */
  current: { model?: string; effort?: string; mode?: string };
  /** compactionId -> whether its item was started / completed (an upsert per id). */
  compactions?: Map<string, 'started' | 'completed'>;
  options: TranslateOptions;
}

export interface ProviderErrorMatch {
  kind: ProviderErrorKind;
  status?: number;
  message: string;
}

/** A message chunk that is the agent's own status line, not model output. */
export type StatusChunk = { kind: 'retry'; message: string } | { kind: 'provider_error'; error: ProviderErrorMatch };

/** Per-agent translation quirks (see the presets). */
export interface TranslateOptions {
  /**
   * Recognizes status lines an agent sends as agent_message_chunk (Copilot CLI 1.0.102: "Info: ...
   * Retrying..." while it retries a 5xx, then "Error: <status> <body>" with stopReason end_turn).
   * A retry becomes a `notice`; an error fails the turn with provider_error. Neither is agent text.
   */
  statusChunk?: (text: string) => StatusChunk | undefined;
  /** Rewrites a thought chunk; `continuing` when it extends the open reasoning item (Gemini's headings). */
  thoughtChunk?: (text: string, continuing: boolean) => string;
  /**
   * Gemini CLI 0.61.0 sends no rawInput for its shell tool; the title is the command line, and the
   * tool name is the toolCallId's prefix (`run_shell_command__run_shell_command_<n>`).
   */
  commandFromTitle?: boolean;
  toolNameFromId?: (toolCallId: string) => string | undefined;
}

export function createTranslateState(options: TranslateOptions = {}): TranslateState {
  return {
    options,
    nextId: 1,
    openText: undefined,
    tools: new Map(),
    usedIds: new Set(),
    turnText: '',
    lastAgentText: '',
    providerError: undefined,
    turnUpdates: 0,
    current: {},
    compactions: new Map(),
  };
}

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

function freshId(state: TranslateState, prefix: string): string {
  const id = `${prefix}_${state.nextId++}`;
  state.usedIds.add(id);
  return id;
}

/** Completes the open text item, if any. */
function closeText(state: TranslateState, status: ItemStatus = 'completed'): EventPayload[] {
  const open = state.openText;
  if (!open) return [];
  state.openText = undefined;
  return [{ type: 'item.completed', item: textItem(open, status) }];
}

function textItem(open: OpenText, status: ItemStatus): Item {
  if (open.kind === 'user_message') {
    if (!open.replay) return { kind: 'user_message', id: open.id, status, text: open.text };
    // History the agent replays (session/load) carries its machinery (Claude Code's command records
    // over claude-agent-acp, recorded on 2.0.23.1): core's system-text registry classifies it.
    return classifyUserMessage({ kind: 'user_message', id: open.id, status, text: open.text, replay: true });
  }
  return { kind: open.kind, id: open.id, status, text: open.text };
}

/**
 * Replayed history sends one user_message_chunk per stored entry with no messageId (claude-agent-acp
 * 0.23.1: a `/model` command record, its output and the typed prompt in a row), so machinery never
 * joins its neighbours: each such chunk is a message of its own and is classified alone.
 */
function isMachinery(text: string): boolean {
  return classifyUserText(text).origin !== 'user';
}

function textChunk(
  state: TranslateState,
  kind: TextKind,
  update: Record<string, unknown>,
  replay: boolean,
): EventPayload[] {
  const content = update.content;
  if (!isRecord(content) || typeof content.type !== 'string') {
    return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  }
  const raw = blockText(content);
  // Images, audio and embedded resources in a message have no item field: they pass through. A text
  // block whose text is not a string is not one the schema allows.
  if (raw === undefined) {
    const malformed = content.type === 'text' || content.type === 'resource_link';
    return [{ type: 'passthrough', frame: content, ...(malformed ? { reason: 'unparsable' as const } : {}) }];
  }
  const messageId = typeof update.messageId === 'string' ? update.messageId : undefined;
  const open = state.openText;
  const sameItem =
    open !== undefined &&
    open.kind === kind &&
    (messageId === undefined || open.messageId === undefined || open.messageId === messageId) &&
    !(replay && kind === 'user_message' && (isMachinery(open.text) || isMachinery(raw)));
  const thought = kind === 'reasoning' ? state.options.thoughtChunk : undefined;
  const text = thought ? thought(raw, sameItem) : raw;
  // claude-agent-acp 0.23.1 opens every message with an empty chunk; it carries nothing.
  if (text === '') return [];
  const status = kind === 'agent_message' && !replay ? state.options.statusChunk?.(text) : undefined;
  if (status?.kind === 'retry') return [{ type: 'notice', kind: 'retry', message: status.message }];
  if (status?.kind === 'provider_error') {
    state.providerError = status.error;
    return [];
  }
  const out: EventPayload[] = [];
  if (!sameItem) {
    out.push(...closeText(state));
    const prefix = kind === 'agent_message' ? 'msg' : kind === 'reasoning' ? 'reasoning' : 'user';
    const next: OpenText = { id: freshId(state, prefix), kind, text: '', replay };
    if (messageId !== undefined) next.messageId = messageId;
    state.openText = next;
    out.push({ type: 'item.started', item: textItem(next, 'running') });
  }
  const current = state.openText as OpenText;
  current.text += text;
  if (kind === 'agent_message' && !replay) {
    if (!sameItem) state.lastAgentText = '';
    state.lastAgentText += text;
    state.turnText += text;
  }
  if (kind !== 'user_message') {
    out.push({ type: 'item.delta', itemId: current.id, kind: kind === 'reasoning' ? 'reasoning' : 'text', text });
  }
  return out;
}

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

function sessionUpdatedFrom(
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

/** A token count or size the agent reported; anything else is absent (never zero, never negative). */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function usageFromUpdate(update: { used?: unknown; size?: unknown; cost?: unknown } | unknown): Usage {
  const record = isRecord(update) ? update : {};
  const used = count(record.used);
  const window = count(record.size);
  const usage: Usage = {};
  if (used !== undefined || window !== undefined) {
    usage.context = { ...(used !== undefined ? { used } : {}), ...(window !== undefined ? { window } : {}) };
  }
  // Only USD has a field; another currency stays in the native frame.
  const cost = isRecord(record.cost) ? record.cost : undefined;
  const amount = count(cost?.amount);
  if (amount !== undefined && typeof cost?.currency === 'string' && cost.currency.toUpperCase() === 'USD') {
    usage.costUsd = { amount, currency: 'USD', source: 'provider' };
  }
  return usage;
}

/** PromptResponse.usage -> the turn's token counts; fields the agent did not send stay absent. */
export function turnTokens(usage: AcpUsage | null | undefined | unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const out: TokenUsage = {};
  const take = (key: keyof TokenUsage, value: unknown) => {
    const n = count(value);
    if (n !== undefined) out[key] = n;
  };
  take('input', usage.inputTokens);
  take('output', usage.outputTokens);
  take('total', usage.totalTokens);
  take('reasoning', usage.thoughtTokens);
  take('cachedInput', usage.cachedReadTokens);
  take('cacheWrite', usage.cachedWriteTokens);
  return Object.keys(out).length > 0 ? out : undefined;
}

const NOTICE_KIND: Record<string, 'info' | 'warning'> = { info: 'info', warning: 'warning', error: 'warning' };

const TURN_OUTPUT = new Set<string>([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

/** compaction_update: one item per compactionId, started once (in_progress) and completed once. */
function compaction(state: TranslateState, update: Record<string, unknown>): EventPayload[] {
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
    case 'plan': {
      // Each plan frame is a complete snapshot: one plan item per snapshot, settled at once.
      if (!Array.isArray(record.entries)) return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
      const item: Item = {
        kind: 'plan',
        id: freshId(state, 'plan'),
        status: 'completed',
        entries: planEntries(record.entries),
      };
      return [
        ...closeText(state),
        { type: 'item.started', item: { ...item, status: 'running' } },
        { type: 'item.completed', item },
      ];
    }
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
          kind: (severity !== undefined && NOTICE_KIND[severity]) || 'info',
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
