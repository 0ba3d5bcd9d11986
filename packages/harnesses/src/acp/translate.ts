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
import {
  assertNever,
  type ErrorInfo,
  type EventPayload,
  type FileChange,
  type Item,
  type ItemStatus,
  type ProviderErrorKind,
  type PermissionOption as ReinsPermissionOption,
  type PlanEntry as ReinsPlanEntry,
  type ToolKind as ReinsToolKind,
  type TokenUsage,
  type ToolCallItem,
  type ToolInfo,
  type TurnOutcome,
  type Usage,
  unsupportedModelError,
} from '@reins/core';
import type {
  Usage as AcpUsage,
  ContentBlock,
  PermissionOption,
  PromptResponse,
  SessionConfigOption,
  SessionUpdate,
  ToolCallContent,
  ToolKind,
} from './wire.js';

type TextKind = 'agent_message' | 'reasoning' | 'user_message';

interface OpenText {
  id: string;
  kind: TextKind;
  text: string;
  /** OpenCode 1.18 tags chunks with a messageId; a new id starts a new item. */
  messageId?: string;
  replay: boolean;
}

interface ToolState {
  item: ToolCallItem;
  /** The output text seen so far, to emit only what is new as a delta. */
  outputText: string;
  settled: boolean;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function freshId(state: TranslateState, prefix: string): string {
  const id = `${prefix}_${state.nextId++}`;
  state.usedIds.add(id);
  return id;
}

function toolItemId(state: TranslateState, toolCallId: string): string {
  let id = toolCallId;
  for (let n = 2; state.usedIds.has(id); n++) id = `${toolCallId}#${n}`;
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
    return { kind: 'user_message', id: open.id, status, text: open.text, ...(open.replay ? { replay: true } : {}) };
  }
  return { kind: open.kind, id: open.id, status, text: open.text };
}

function chunkText(content: ContentBlock): string | undefined {
  if (content.type === 'text') return content.text;
  if (content.type === 'resource_link') return content.uri;
  return undefined;
}

function textChunk(
  state: TranslateState,
  kind: TextKind,
  content: ContentBlock,
  messageId: string | null | undefined,
  replay: boolean,
): EventPayload[] {
  const raw = chunkText(content);
  // Images, audio and embedded resources in a message have no item field: the caller passes them through.
  if (raw === undefined) return [{ type: 'passthrough', frame: content }];
  const open = state.openText;
  const sameItem =
    open !== undefined &&
    open.kind === kind &&
    (messageId == null || open.messageId == null || open.messageId === messageId);
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
    if (messageId != null) next.messageId = messageId;
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

/** ACP tool kind -> Reins tool kind. */
export function toolKindOf(kind: ToolKind | null | undefined): ReinsToolKind {
  if (kind === null || kind === undefined) return 'other';
  switch (kind) {
    case 'execute':
      return 'command';
    case 'edit':
    case 'delete':
    case 'move':
      return 'file_change';
    // fetch is network access (claude-agent-acp files WebFetch and WebSearch under it): web_search.
    case 'fetch':
      return 'web_search';
    // search is a LOCAL file search (Grep/Glob, Gemini's search_file_content), not the web: other.
    case 'search':
    case 'read':
    case 'think':
    case 'switch_mode':
    case 'other':
      return 'other';
    default:
      return assertNever(kind, 'ACP tool kind');
  }
}

/** The tool's own name: ACP `name`, else the agent's _meta tool name, else the title, else the kind. */
function toolNameOf(update: Record<string, unknown>): string | undefined {
  if (typeof update.name === 'string' && update.name) return update.name;
  const meta = isRecord(update._meta) ? update._meta : undefined;
  if (meta) {
    // claude-agent-acp 0.23.1: _meta.claudeCode.toolName; Qwen Code 0.24.4: _meta.toolName.
    const claude = isRecord(meta.claudeCode) ? meta.claudeCode.toolName : undefined;
    if (typeof claude === 'string' && claude) return claude;
    if (typeof meta.toolName === 'string' && meta.toolName) return meta.toolName;
  }
  return undefined;
}

function toolStatusOf(status: unknown): ItemStatus | undefined {
  switch (status) {
    case 'pending':
    case 'in_progress':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    default:
      return undefined;
  }
}

function hasInput(raw: unknown): boolean {
  if (raw === undefined || raw === null) return false;
  if (isRecord(raw)) return Object.keys(raw).length > 0;
  return true;
}

/** A plain unified diff of two texts (whole-file hunk): readable, and exact about what changed. */
export function wholeFileDiff(path: string, oldText: string | null | undefined, newText: string): string {
  const split = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const before = split(oldText ?? '');
  const after = split(newText);
  const header = [`--- ${oldText == null ? '/dev/null' : `a/${path}`}`, `+++ b/${path}`];
  const hunk = `@@ -${before.length === 0 ? 0 : 1},${before.length} +${after.length === 0 ? 0 : 1},${after.length} @@`;
  return [...header, hunk, ...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)].join('\n');
}

function contentParts(content: ToolCallContent[]): { text: string; changes: FileChange[] } {
  const texts: string[] = [];
  const changes: FileChange[] = [];
  for (const part of content) {
    if (part.type === 'content') {
      const text = chunkText(part.content);
      if (text !== undefined) texts.push(text);
    } else if (part.type === 'diff') {
      changes.push({
        path: part.path,
        kind: part.oldText == null ? 'add' : 'update',
        diff: wholeFileDiff(part.path, part.oldText, part.newText),
      });
    }
    // 'terminal' content points at a client terminal; Reins offers none, so it stays in structured output.
  }
  return { text: texts.join('\n'), changes };
}

function exitCodeOf(rawOutput: unknown): number | undefined {
  if (!isRecord(rawOutput)) return undefined;
  const candidates = [
    rawOutput.exitCode,
    rawOutput.exit_code,
    // OpenCode 1.18.33: rawOutput.metadata.exit
    isRecord(rawOutput.metadata) ? rawOutput.metadata.exit : undefined,
  ];
  for (const value of candidates) if (typeof value === 'number' && Number.isInteger(value)) return value;
  return undefined;
}

/** Opens or updates the tool_call item for one tool_call / tool_call_update / permission toolCall. */
function toolUpdate(state: TranslateState, update: Record<string, unknown>, fromPermission = false): EventPayload[] {
  const toolCallId = String(update.toolCallId);
  const out: EventPayload[] = [];
  let tool = state.tools.get(toolCallId);
  if (tool?.settled) {
    // A late update for a settled call (some agents repeat the final frame): nothing new to say.
    return [{ type: 'passthrough', frame: update }];
  }
  const kind = (update.kind ?? undefined) as ToolKind | undefined;
  const title = typeof update.title === 'string' && update.title ? update.title : undefined;
  const name = toolNameOf(update);
  const status = fromPermission ? undefined : toolStatusOf(update.status);
  const content = Array.isArray(update.content) ? (update.content as ToolCallContent[]) : undefined;
  const parts = content ? contentParts(content) : undefined;

  if (!tool) {
    out.push(...closeText(state));
    const idName = state.options.toolNameFromId?.(toolCallId);
    const info: ToolInfo = { kind: toolKindOf(kind), name: name ?? idName ?? title ?? kind ?? 'tool' };
    if (title) info.title = title;
    const item: ToolCallItem = {
      kind: 'tool_call',
      id: toolItemId(state, toolCallId),
      status: 'running',
      tool: info,
      input: hasInput(update.rawInput) ? update.rawInput : {},
    };
    tool = { item, outputText: '', settled: false };
    state.tools.set(toolCallId, tool);
    out.push({ type: 'item.started', item: { ...item } });
  } else {
    const info = tool.item.tool;
    // The established name stays; a real name only replaces a placeholder taken from the title or kind.
    const placeholder = info.name === info.title || info.name === 'tool' || info.name === kind;
    if (name && placeholder) info.name = name;
    if (kind) info.kind = toolKindOf(kind);
    if (title) info.title = title;
    if (hasInput(update.rawInput)) {
      const before = JSON.stringify(tool.item.input);
      tool.item.input = update.rawInput;
      const after = JSON.stringify(update.rawInput);
      if (after !== before) out.push({ type: 'item.delta', itemId: tool.item.id, kind: 'tool_input', text: after });
    }
  }
  const item = tool.item;
  if (parts) {
    // ACP: `content` REPLACES the collection. Gemini CLI 0.61.0 puts the call's description in the
    // opening frame and sends `content: []` on completion: that description is not output.
    if (!parts.text && tool.outputText) {
      tool.outputText = '';
      const { text: _dropped, ...rest } = item.output ?? {};
      if (Object.keys(rest).length > 0) item.output = rest;
      else delete item.output;
    }
    if (parts.text) {
      if (parts.text.startsWith(tool.outputText) && parts.text.length > tool.outputText.length) {
        out.push({
          type: 'item.delta',
          itemId: item.id,
          kind: 'tool_output',
          text: parts.text.slice(tool.outputText.length),
        });
      }
      tool.outputText = parts.text;
      item.output = { ...item.output, text: parts.text };
    }
    if (parts.changes.length > 0) item.changes = parts.changes;
  }
  if (update.rawOutput !== undefined && update.rawOutput !== null) {
    item.output = { ...item.output, structured: update.rawOutput };
    const exitCode = exitCodeOf(update.rawOutput);
    if (exitCode !== undefined) item.exitCode = exitCode;
  }
  if ((kind === 'delete' || kind === 'move') && !item.changes && Array.isArray(update.locations)) {
    const paths = (update.locations as { path?: unknown }[]).map((l) => l.path).filter((p) => typeof p === 'string');
    if (paths.length > 0) {
      item.changes =
        kind === 'move' && paths.length >= 2
          ? [{ path: paths[0] as string, kind: 'move', movePath: paths[1] as string }]
          : paths.map((path) => ({ path: path as string, kind: kind === 'move' ? 'move' : 'delete' }));
    }
  }
  if (state.options.commandFromTitle && item.tool.kind === 'command' && !hasInput(item.input) && item.tool.title) {
    item.input = { command: item.tool.title };
  }
  if (status === 'completed' || status === 'failed') {
    item.status = status;
    tool.settled = true;
    out.push({ type: 'item.completed', item: { ...item } });
  }
  return out;
}

function planEntries(entries: unknown): ReinsPlanEntry[] {
  if (!Array.isArray(entries)) return [];
  return entries.filter(isRecord).map((entry) => {
    const out: ReinsPlanEntry = {
      text: String(entry.content ?? ''),
      status: entry.status === 'completed' || entry.status === 'in_progress' ? entry.status : 'pending',
    };
    if (entry.priority === 'high' || entry.priority === 'medium' || entry.priority === 'low')
      out.priority = entry.priority;
    return out;
  });
}

/** Model, effort and mode as the agent's config options state them (categories model, thought_level, mode). */
export function settingsFromConfigOptions(options: SessionConfigOption[] | null | undefined): {
  model?: string;
  effort?: string;
  mode?: string;
} {
  const out: { model?: string; effort?: string; mode?: string } = {};
  for (const option of options ?? []) {
    if (option.type !== 'select') continue;
    const value = String(option.currentValue);
    if (option.category === 'model') out.model = value;
    else if (option.category === 'thought_level') out.effort = value;
    else if (option.category === 'mode') out.mode = value;
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

export function usageFromUpdate(update: {
  used: number;
  size: number;
  cost?: { amount: number; currency: string } | null;
}): Usage {
  const usage: Usage = { context: { used: update.used, window: update.size } };
  // Only USD has a field; another currency stays in the native frame.
  if (update.cost && update.cost.currency.toUpperCase() === 'USD') {
    usage.costUsd = { amount: update.cost.amount, currency: 'USD', source: 'provider' };
  }
  return usage;
}

/** PromptResponse.usage -> the turn's token counts; fields the agent did not send stay absent. */
export function turnTokens(usage: AcpUsage | null | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const out: TokenUsage = {};
  if (typeof usage.inputTokens === 'number') out.input = usage.inputTokens;
  if (typeof usage.outputTokens === 'number') out.output = usage.outputTokens;
  if (typeof usage.totalTokens === 'number') out.total = usage.totalTokens;
  if (typeof usage.thoughtTokens === 'number') out.reasoning = usage.thoughtTokens;
  if (typeof usage.cachedReadTokens === 'number') out.cachedInput = usage.cachedReadTokens;
  if (typeof usage.cachedWriteTokens === 'number') out.cacheWrite = usage.cachedWriteTokens;
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

/** One `session/update` notification -> event payloads. Unknown kinds come back as passthrough. */
export function translateUpdate(state: TranslateState, update: SessionUpdate, context: UpdateContext): EventPayload[] {
  const replay = !context.inTurn;
  // Only the turn's own output counts: agents also send chatter (available commands, config) at any time.
  if (context.inTurn && TURN_OUTPUT.has(update.sessionUpdate)) state.turnUpdates++;
  const kind = update.sessionUpdate;
  switch (kind) {
    case 'user_message_chunk':
      return textChunk(state, 'user_message', update.content, update.messageId, replay);
    case 'agent_message_chunk':
      return textChunk(state, 'agent_message', update.content, update.messageId, replay);
    case 'agent_thought_chunk':
      return textChunk(state, 'reasoning', update.content, update.messageId, replay);
    case 'tool_call':
    case 'tool_call_update':
      return toolUpdate(state, update as unknown as Record<string, unknown>);
    case 'plan': {
      // Each plan frame is a complete snapshot: one plan item per snapshot, settled at once.
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
    case 'usage_update':
      return [{ type: 'usage.updated', ...usageFromUpdate(update) }];
    case 'session_info_update':
      return typeof update.title === 'string'
        ? sessionUpdatedFrom(state, { title: update.title })
        : [{ type: 'passthrough', frame: update }];
    case 'current_mode_update': {
      const out = sessionUpdatedFrom(state, { mode: update.currentModeId });
      return out.length > 0 ? out : [{ type: 'passthrough', frame: update }];
    }
    case 'config_option_update': {
      const out = sessionUpdatedFrom(state, settingsFromConfigOptions(update.configOptions));
      return out.length > 0 ? out : [{ type: 'passthrough', frame: update }];
    }
    case 'notice': {
      const message = update.description ? `${update.title}: ${update.description}` : update.title;
      return [
        { type: 'notice', kind: NOTICE_KIND[update.severity] ?? 'info', message, data: { severity: update.severity } },
      ];
    }
    case 'compaction_update': {
      const status: ItemStatus =
        update.status === 'completed' ? 'completed' : update.status === 'failed' ? 'failed' : 'running';
      const item: Item = { kind: 'compaction', id: `compaction_${update.compactionId}`, status };
      return [...closeText(state), { type: status === 'running' ? 'item.started' : 'item.completed', item }];
    }
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
      return assertNeverUpdate(kind, update);
  }
}

/** A kind newer than this SDK's schema is passed through, not thrown at (the agent may be newer). */
function assertNeverUpdate(_kind: never, update: unknown): EventPayload[] {
  return [{ type: 'passthrough', frame: update }];
}

/** Closes what a replay left open (session/load, session/resume) so every replayed item is settled. */
export function finishReplay(state: TranslateState): EventPayload[] {
  const out = closeText(state);
  for (const tool of state.tools.values()) {
    if (tool.settled) continue;
    tool.settled = true;
    out.push({ type: 'item.completed', item: { ...tool.item, status: 'cancelled' } });
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

export function outcomeOf(stopReason: PromptResponse['stopReason']): TurnOutcome {
  switch (stopReason) {
    case 'end_turn':
    case 'max_tokens':
    case 'max_turn_requests':
    case 'refusal':
      return { status: 'completed' };
    case 'cancelled':
      return { status: 'cancelled' };
    default:
      return assertNever(stopReason, 'ACP stop reason');
  }
}

/** A permission request -> the tool item (when the agent never announced it) and permission.requested. */
export function translatePermission(
  state: TranslateState,
  requestId: string,
  toolCall: Record<string, unknown>,
  options: PermissionOption[],
): { payloads: EventPayload[]; itemId: string | undefined } {
  const payloads: EventPayload[] = [];
  const toolCallId = typeof toolCall.toolCallId === 'string' ? toolCall.toolCallId : undefined;
  let itemId: string | undefined;
  let tool: ToolInfo = {
    kind: toolKindOf(toolCall.kind as ToolKind | undefined),
    name: toolNameOf(toolCall) ?? 'tool',
  };
  let input: unknown = toolCall.rawInput;
  if (toolCallId) {
    payloads.push(...toolUpdate(state, toolCall, true));
    const known = state.tools.get(toolCallId);
    if (known) {
      itemId = known.item.id;
      tool = { ...known.item.tool };
      input = known.item.input;
    }
  }
  const mapped: ReinsPermissionOption[] = options.map((option) => ({
    id: option.optionId,
    kind: option.kind,
    label: option.name,
  }));
  payloads.push({
    type: 'permission.requested',
    requestId,
    tool,
    ...(input !== undefined ? { input } : {}),
    ...(itemId ? { itemId } : {}),
    options: mapped,
  });
  return { payloads, itemId };
}

/** The option that carries out a decision: the caller's pick, else the first of the right kind. */
export function pickPermissionOption(
  options: PermissionOption[],
  decision: { behavior: 'allow' | 'deny'; scope?: 'once' | 'session'; optionId?: string },
): string | undefined {
  if (decision.optionId && options.some((option) => option.optionId === decision.optionId)) return decision.optionId;
  const order =
    decision.behavior === 'allow'
      ? decision.scope === 'session'
        ? ['allow_always', 'allow_once']
        : ['allow_once', 'allow_always']
      : decision.scope === 'session'
        ? ['reject_always', 'reject_once']
        : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const found = options.find((option) => option.kind === kind);
    if (found) return found.optionId;
  }
  return undefined;
}

/**
 * A provider failure as a turn error, with the same rules as the other adapters: a 404 from the
 * model endpoint (or a message saying the model was not found) is `unsupported_model` (its message carries the BINDING words; the model is named
 * when known), 401/403 is `auth_required`, everything else `provider_error` with the kind in data.
 */
export function providerFailure(
  match: ProviderErrorMatch,
  data: Record<string, unknown> = {},
  model?: string,
): ErrorInfo {
  const details = { kind: match.kind, ...(match.status !== undefined ? { status: match.status } : {}), ...data };
  // Gemini CLI 0.61.0 relabels the provider's 404 as JSON-RPC 500 but keeps its words.
  if (match.status === 404 || /\bmodels?\b.*\b(not found|does not exist)/i.test(match.message)) {
    const info = unsupportedModelError(model ?? 'unknown', match.message).toInfo();
    return { ...info, data: { ...info.data, ...details } };
  }
  if (match.status === 401 || match.status === 403) {
    return {
      code: 'auth_required',
      message: `The model provider refused the credentials: ${match.message}`,
      data: details,
    };
  }
  return {
    code: 'provider_error',
    message: `The model provider failed: ${match.message}`,
    retryable: match.kind === 'rate_limited' || match.kind === 'overloaded' || match.kind === 'server_error',
    data: details,
  };
}
