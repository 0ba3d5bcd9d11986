// Pure translation of Reins session events into what an ACP agent sends its client: `session/update`
// payloads, the `session/prompt` answer, the session's config options and permission requests.
// No process, no I/O: agent.ts feeds events in and writes out what comes back.
//
// Rules:
// - An item's text reaches the client once. Deltas stream as chunks (messageId = the item id); the
//   completed item, which is the truth, adds only what the deltas did not already carry (all of it
//   when nothing streamed, e.g. an agent_message that arrives only as item.completed).
// - A tool_call item is one ACP tool call (toolCallId = the item id): `tool_call` when it starts,
//   `tool_call_update` for output and for the end. ACP content REPLACES the collection, so output
//   updates carry all the output so far.
// - What ACP has no place for is dropped here on purpose, with the reason next to it; nothing is
//   made up to fill a field, except where ACP requires a field Reins may lack (said where it happens).
import {
  assertNever,
  EFFORT_LEVELS,
  type ErrorInfo,
  type FileChange,
  type Item,
  type ModelInfo,
  type NoticeKind,
  type PermissionRequestedEvent,
  type ReinsEvent,
  type PlanEntry as ReinsPlanEntry,
  type TokenUsage,
  type ToolCallItem,
  type ToolInfo,
  type TurnCompletedEvent,
} from '@reins/core';
import {
  type PermissionOption,
  type PlanEntry,
  type PromptResponse,
  RPC,
  type SessionConfigOption,
  type SessionUpdate,
  type StopReason,
  type ToolCallContent,
  type ToolCallLocation,
  type ToolCallStatus,
  type ToolCallUpdate,
  type ToolKind,
  type Usage,
} from './wire.js';

/** Config option ids the bridge offers (categories `model` and `thought_level`). */
export const MODEL_OPTION = 'model';
export const EFFORT_OPTION = 'effort';
/** The effort value that stands for "whatever the harness picks"; never sent to the harness. */
export const HARNESS_DEFAULT_EFFORT = 'default';

export interface BridgeSettings {
  model?: string;
  effort?: string;
  /** The harness's model catalog, when it has one and it answered. */
  catalog?: ModelInfo[];
  /** The adapter implements setEffort: the effort option is offered. */
  effortSwitch: boolean;
}

interface StreamedText {
  /** Text already sent as chunks. */
  sent: string;
}

interface ToolProgress {
  /** The client has heard of this toolCallId (tool_call, or a permission request naming it). */
  announced: boolean;
  /** Output text gathered from tool_output deltas. */
  output: string;
}

export interface BridgeState {
  texts: Map<string, StreamedText>;
  tools: Map<string, ToolProgress>;
  /** The last plan sent, to skip repeats. */
  lastPlan: string | undefined;
  settings: BridgeSettings;
  /** The config options the client was last given (JSON), so only changes go out. */
  sentOptions: string;
  nativeSessionId: string | undefined;
}

export function createBridgeState(settings: BridgeSettings): BridgeState {
  return {
    texts: new Map(),
    tools: new Map(),
    lastPlan: undefined,
    settings,
    sentOptions: '[]',
    nativeSessionId: undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- text ----

function chunk(kind: 'agent_message_chunk' | 'agent_thought_chunk', itemId: string, text: string): SessionUpdate {
  return { sessionUpdate: kind, content: { type: 'text', text }, messageId: itemId };
}

function chunkKind(kind: 'agent_message' | 'reasoning'): 'agent_message_chunk' | 'agent_thought_chunk' {
  return kind === 'agent_message' ? 'agent_message_chunk' : 'agent_thought_chunk';
}

/** What the completed text item adds to what streamed. */
function finishText(state: BridgeState, item: Item & { kind: 'agent_message' | 'reasoning' }): SessionUpdate[] {
  const sent = state.texts.get(item.id)?.sent ?? '';
  state.texts.delete(item.id);
  const text = item.kind === 'reasoning' ? item.text || item.summary || '' : item.text;
  if (text === sent || text === '') return [];
  if (text.startsWith(sent)) return [chunk(chunkKind(item.kind), item.id, text.slice(sent.length))];
  // The streamed preview and the final text disagree. ACP cannot take chunks back, so the client
  // keeps what streamed rather than getting the text twice.
  return [];
}

// ---- tools ----

/** Reins tool kind -> ACP tool kind: the reverse of the ACP adapter's toolKindOf. */
export function acpToolKindOf(tool: ToolInfo, changes?: FileChange[]): ToolKind {
  switch (tool.kind) {
    case 'command':
      return 'execute';
    case 'file_change':
      if (changes?.length && changes.every((change) => change.kind === 'delete')) return 'delete';
      if (changes?.length && changes.every((change) => change.kind === 'move')) return 'move';
      return 'edit';
    case 'web_search':
      return 'fetch';
    // ACP has no kind for MCP tools or subagents; the title and name say what they are.
    case 'mcp':
    case 'subagent':
    case 'other':
      return 'other';
    default:
      return assertNever(tool.kind, 'tool kind');
  }
}

function acpToolStatusOf(status: Item['status']): ToolCallStatus {
  switch (status) {
    case 'running':
      return 'in_progress';
    case 'completed':
      return 'completed';
    // ACP has no declined or cancelled tool status: a tool that did not run to the end failed.
    case 'failed':
    case 'declined':
    case 'cancelled':
      return 'failed';
    default:
      return assertNever(status, 'item status');
  }
}

/**
 * A unified diff -> the before and after text ACP's diff content wants. With hunks, both sides hold
 * the hunks' lines (context and changes), not necessarily the whole file: a diff carries no more.
 * Without hunks, only an added file's text is known (Codex 0.169.0 gives a new file's content as its
 * "diff"); anything else has no honest before/after and gets none.
 */
export function diffTexts(change: FileChange): { oldText: string | null; newText: string } | undefined {
  const diff = change.diff;
  if (diff === undefined) return undefined;
  const lines = diff.split('\n');
  if (!lines.some((line) => line.startsWith('@@'))) {
    return change.kind === 'add' ? { oldText: null, newText: diff } : undefined;
  }
  const before: string[] = [];
  const after: string[] = [];
  let inHunk = false;
  for (const line of lines) {
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith('\\')) continue;
    if (line.startsWith('+')) after.push(line.slice(1));
    else if (line.startsWith('-')) before.push(line.slice(1));
    else if (line.startsWith(' ')) {
      before.push(line.slice(1));
      after.push(line.slice(1));
    } else if (line.startsWith('diff ')) inHunk = false;
  }
  return {
    oldText: change.kind === 'add' ? null : before.join('\n'),
    newText: change.kind === 'delete' ? '' : after.join('\n'),
  };
}

function toolContent(outputText: string | undefined, changes: FileChange[] | undefined): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  if (outputText) content.push({ type: 'content', content: { type: 'text', text: outputText } });
  for (const change of changes ?? []) {
    const texts = diffTexts(change);
    if (texts) content.push({ type: 'diff', path: change.path, ...texts });
  }
  return content;
}

function toolLocations(changes: FileChange[] | undefined): ToolCallLocation[] | undefined {
  if (!changes?.length) return undefined;
  return changes.flatMap((change) => [{ path: change.path }, ...(change.movePath ? [{ path: change.movePath }] : [])]);
}

/** rawOutput: the structured result as the harness gave it; the exit code joins it where it is missing. */
function rawOutputOf(item: ToolCallItem): unknown {
  const structured = item.output?.structured;
  if (item.exitCode === undefined) return structured;
  if (structured === undefined) return { exitCode: item.exitCode };
  if (isRecord(structured) && structured.exitCode === undefined) return { ...structured, exitCode: item.exitCode };
  return structured;
}

function toolFields(item: ToolCallItem, streamedOutput: string) {
  const outputText = item.output?.text ?? (streamedOutput || undefined);
  const content = toolContent(outputText, item.changes);
  const locations = toolLocations(item.changes);
  const rawOutput = rawOutputOf(item);
  return {
    toolCallId: item.id,
    title: item.tool.title ?? item.tool.name,
    name: item.tool.name,
    kind: acpToolKindOf(item.tool, item.changes),
    status: acpToolStatusOf(item.status),
    // A tool still running with nothing to show yet sends no content, so it clears nothing.
    ...(content.length > 0 ? { content } : {}),
    ...(locations ? { locations } : {}),
    rawInput: item.input,
    ...(rawOutput !== undefined ? { rawOutput } : {}),
  };
}

function toolMeta(parentItemId: string | undefined): { _meta?: Record<string, unknown> } {
  // ACP v1 has no subagent lanes; the parent is kept where a client can look for it.
  return parentItemId ? { _meta: { reins: { parentItemId } } } : {};
}

function startTool(state: BridgeState, item: ToolCallItem, parentItemId: string | undefined): SessionUpdate[] {
  const progress = state.tools.get(item.id) ?? { announced: false, output: '' };
  state.tools.set(item.id, progress);
  const fields = toolFields(item, progress.output);
  const wasAnnounced = progress.announced;
  progress.announced = true;
  if (wasAnnounced) return [{ sessionUpdate: 'tool_call_update', ...fields, ...toolMeta(parentItemId) }];
  return [{ sessionUpdate: 'tool_call', ...fields, ...toolMeta(parentItemId) }];
}

function toolOutput(state: BridgeState, itemId: string, text: string): SessionUpdate[] {
  const progress = state.tools.get(itemId) ?? { announced: false, output: '' };
  state.tools.set(itemId, progress);
  progress.output += text;
  // Output for a call the client never heard of waits for the completed item, which names the tool.
  if (!progress.announced) return [];
  return [
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: itemId,
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: progress.output } }],
    },
  ];
}

function finishTool(state: BridgeState, item: ToolCallItem, parentItemId: string | undefined): SessionUpdate[] {
  const progress = state.tools.get(item.id);
  state.tools.delete(item.id);
  const fields = toolFields(item, progress?.output ?? '');
  const meta = toolMeta(parentItemId);
  if (progress?.announced) return [{ sessionUpdate: 'tool_call_update', ...fields, ...meta }];
  return [{ sessionUpdate: 'tool_call', ...fields, ...meta }];
}

// ---- plan, usage, notices ----

function planUpdate(state: BridgeState, entries: ReinsPlanEntry[]): SessionUpdate[] {
  const acpEntries: PlanEntry[] = entries.map((entry) => ({
    content: entry.text,
    status: entry.status,
    // ACP requires a priority; Reins leaves it absent when the harness gave none. Medium is the
    // neutral middle, the one value that claims nothing.
    priority: entry.priority ?? 'medium',
  }));
  const snapshot = JSON.stringify(acpEntries);
  if (snapshot === state.lastPlan) return [];
  state.lastPlan = snapshot;
  return [{ sessionUpdate: 'plan', entries: acpEntries }];
}

const NOTICE_SEVERITY: Record<NoticeKind, 'info' | 'warning'> = {
  retry: 'info',
  rate_limit: 'warning',
  compaction: 'info',
  hook: 'info',
  warning: 'warning',
  metered_key: 'warning',
  deprecation: 'warning',
  info: 'info',
};

// ---- config options ----

function catalogEntry(settings: BridgeSettings): ModelInfo | undefined {
  return settings.catalog?.find((model) => model.id === settings.model);
}

/**
 * The session's config options. The model option exists only when the harness listed its models:
 * ACP clients refuse values an option does not list, so a made-up one-entry list would block every
 * switch (without it, clients fall back to `session/set_model`, which the bridge also takes).
 */
export function configOptionsOf(settings: BridgeSettings): SessionConfigOption[] {
  const options: SessionConfigOption[] = [];
  if (settings.model && settings.catalog && settings.catalog.length > 0) {
    const values = settings.catalog.map((model) => ({ value: model.id, name: model.displayName ?? model.id }));
    if (!values.some((value) => value.value === settings.model)) {
      values.unshift({ value: settings.model, name: settings.model });
    }
    options.push({
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: settings.model,
      options: values,
    });
  }
  if (settings.effortSwitch) {
    const levels: string[] = catalogEntry(settings)?.efforts ?? [...EFFORT_LEVELS];
    const values = levels.map((level) => ({ value: level, name: level }));
    const current = settings.effort ?? HARNESS_DEFAULT_EFFORT;
    if (!values.some((value) => value.value === current)) {
      values.unshift(
        current === HARNESS_DEFAULT_EFFORT
          ? { value: current, name: 'Harness default' }
          : { value: current, name: current },
      );
    }
    options.push({
      id: EFFORT_OPTION,
      name: 'Reasoning effort',
      category: 'thought_level',
      type: 'select',
      currentValue: current,
      options: values,
    });
  }
  return options;
}

/** The current options, recorded as what the client now has (for answers that carry them). */
export function takeConfigOptions(state: BridgeState): SessionConfigOption[] {
  const options = configOptionsOf(state.settings);
  state.sentOptions = JSON.stringify(options);
  return options;
}

function optionsUpdate(state: BridgeState): SessionUpdate[] {
  const options = configOptionsOf(state.settings);
  const snapshot = JSON.stringify(options);
  if (snapshot === state.sentOptions) return [];
  state.sentOptions = snapshot;
  return [{ sessionUpdate: 'config_option_update', configOptions: options }];
}

// ---- events ----

/** One Reins event -> the `session/update` payloads it becomes (often none). */
export function translateEvent(state: BridgeState, event: ReinsEvent): SessionUpdate[] {
  switch (event.type) {
    case 'session.started':
      if (event.model && !state.settings.model) state.settings.model = event.model;
      return optionsUpdate(state);
    case 'session.updated': {
      const out: SessionUpdate[] = [];
      if (event.model) state.settings.model = event.model;
      if (event.effort) state.settings.effort = event.effort;
      out.push(...optionsUpdate(state));
      const nativeChanged = event.nativeSessionId !== undefined && event.nativeSessionId !== state.nativeSessionId;
      if (event.nativeSessionId) state.nativeSessionId = event.nativeSessionId;
      // The native id rides in _meta: the ACP session id never changes, and a client that got a
      // bridge-made id (see agent.ts) learns the id to load later. mode, tools and apiKeySource
      // have no ACP field (the bridge offers no modes) and are dropped.
      if (event.title !== undefined || nativeChanged) {
        out.push({
          sessionUpdate: 'session_info_update',
          ...(event.title !== undefined ? { title: event.title } : {}),
          ...(nativeChanged ? { _meta: { reins: { nativeSessionId: event.nativeSessionId } } } : {}),
        });
      }
      return out;
    }
    case 'item.started':
      return itemStarted(state, event.item, event.parentItemId);
    case 'item.delta':
      return itemDelta(state, event);
    case 'item.completed':
      return itemCompleted(state, event.item, event.parentItemId);
    case 'usage.updated': {
      const used = event.context?.used;
      const size = event.context?.window;
      // usage_update needs both used and size; absent is not zero, so without them nothing is sent
      // (token counts ride on the session/prompt answer instead).
      if (used === undefined || size === undefined) return [];
      return [
        {
          sessionUpdate: 'usage_update',
          used,
          size,
          ...(event.costUsd ? { cost: { amount: event.costUsd.amount, currency: event.costUsd.currency } } : {}),
        },
      ];
    }
    case 'notice':
      return [
        {
          sessionUpdate: 'notice',
          severity: NOTICE_SEVERITY[event.kind],
          title: event.message,
          _meta: { reins: { kind: event.kind } },
        },
      ];
    case 'error':
      return [
        {
          sessionUpdate: 'notice',
          severity: 'error',
          title: event.message,
          _meta: { reins: { code: event.code, fatal: event.fatal } },
        },
      ];
    case 'session.closed':
      // ACP has no "session ended" message: a harness that went away is told as an error notice
      // (a running turn fails on its own request). A close the client asked for needs no word.
      if (event.reason === 'requested') return [];
      return [
        {
          sessionUpdate: 'notice',
          severity: 'error',
          title: `The ${event.harness} session ended: ${event.error?.message ?? event.reason}`,
          _meta: { reins: { reason: event.reason, ...(event.error ? { error: event.error } : {}) } },
        },
      ];
    // The session/prompt request is the turn on ACP: its start and end are the request and its
    // answer (see promptAnswer), and its lifetime is the status.
    case 'turn.started':
    case 'turn.completed':
    case 'session.status':
    // agent.ts sends permission requests (they are client requests, not updates); the client
    // answered it itself, or the harness withdrew it (the pending request is cancelled).
    case 'permission.requested':
    case 'permission.resolved':
    // Native frames of the harness underneath mean nothing to an ACP client.
    case 'passthrough':
      return [];
    default:
      return assertNever(event, 'event');
  }
}

function itemStarted(state: BridgeState, item: Item, parentItemId: string | undefined): SessionUpdate[] {
  switch (item.kind) {
    case 'agent_message':
    case 'reasoning':
      state.texts.set(item.id, { sent: '' });
      return [];
    case 'tool_call':
      return startTool(state, item, parentItemId);
    case 'plan':
      return item.entries.length > 0 ? planUpdate(state, item.entries) : [];
    case 'compaction':
      return [{ sessionUpdate: 'compaction_update', compactionId: item.id, status: 'in_progress' }];
    // The client sent the prompt itself; echoing it would show it twice.
    case 'user_message':
      return [];
    default:
      return assertNever(item, 'item');
  }
}

function itemDelta(state: BridgeState, event: ReinsEvent & { type: 'item.delta' }): SessionUpdate[] {
  switch (event.kind) {
    case 'text':
    case 'reasoning': {
      // A subagent's words are not the agent's answer, and ACP v1 has no lane for them.
      if (event.parentItemId || event.text === '') return [];
      const streamed = state.texts.get(event.itemId) ?? { sent: '' };
      state.texts.set(event.itemId, streamed);
      streamed.sent += event.text;
      return [chunk(event.kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk', event.itemId, event.text)];
    }
    case 'tool_output':
      return toolOutput(state, event.itemId, event.text);
    // Tool input previews are partial JSON in some harnesses; ACP's rawInput wants the whole value,
    // which the completed item carries.
    case 'tool_input':
      return [];
    default:
      return assertNever(event.kind, 'delta kind');
  }
}

function itemCompleted(state: BridgeState, item: Item, parentItemId: string | undefined): SessionUpdate[] {
  switch (item.kind) {
    case 'agent_message':
    case 'reasoning':
      if (parentItemId) {
        state.texts.delete(item.id);
        return [];
      }
      return finishText(state, item);
    case 'tool_call':
      return finishTool(state, item, parentItemId);
    case 'plan':
      return planUpdate(state, item.entries);
    case 'compaction':
      return [
        {
          sessionUpdate: 'compaction_update',
          compactionId: item.id,
          status: item.status === 'running' ? 'in_progress' : item.status === 'declined' ? 'cancelled' : item.status,
        },
      ];
    case 'user_message':
      // Replayed history (resume) is shown as the user's words; a live prompt is the client's own.
      return item.replay && item.text
        ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: item.text } }]
        : [];
    default:
      return assertNever(item, 'item');
  }
}

/** Settled items of a stored conversation (session/load replay) -> updates, each item once. */
export function historyUpdates(items: Item[]): SessionUpdate[] {
  const state = createBridgeState({ effortSwitch: false });
  const out: SessionUpdate[] = [];
  for (const item of items) {
    if (item.kind === 'user_message') {
      if (item.text) out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: item.text } });
      continue;
    }
    out.push(...itemCompleted(state, item, undefined));
  }
  return out;
}

// ---- permissions ----

/** Option ids the bridge makes when the harness offered none (its decision then has no optionId). */
export const FALLBACK_ALLOW = 'reins:allow';
export const FALLBACK_REJECT = 'reins:reject';

/** A Reins permission request -> the `session/request_permission` params (minus the session id). */
export function permissionRequestOf(
  state: BridgeState,
  event: PermissionRequestedEvent,
): { toolCall: ToolCallUpdate; options: PermissionOption[] } {
  const toolCallId = event.itemId ?? `permission_${event.requestId}`;
  const progress = state.tools.get(toolCallId);
  if (progress) progress.announced = true;
  else if (event.itemId) state.tools.set(toolCallId, { announced: true, output: '' });
  const options: PermissionOption[] =
    event.options.length > 0
      ? event.options.map((option) => ({ optionId: option.id, name: option.label, kind: option.kind }))
      : [
          // ACP needs options to choose from; these two carry the plain allow/deny every harness takes.
          { optionId: FALLBACK_ALLOW, name: 'Allow', kind: 'allow_once' },
          { optionId: FALLBACK_REJECT, name: 'Reject', kind: 'reject_once' },
        ];
  return {
    toolCall: {
      toolCallId,
      title: event.tool.title ?? event.tool.name,
      name: event.tool.name,
      kind: acpToolKindOf(event.tool),
      status: 'pending',
      ...(event.input !== undefined ? { rawInput: event.input } : {}),
    },
    options,
  };
}

// ---- the turn's answer ----

export interface AcpError {
  code: number;
  message: string;
  /** The Reins error as is, so a Reins-aware client keeps the stable code. */
  data: ErrorInfo;
}

export type PromptAnswer = { ok: true; response: PromptResponse } | { ok: false; error: AcpError };

/** A Reins error -> a JSON-RPC error: the message is the Reins message, the data the whole ErrorInfo. */
export function acpErrorOf(error: ErrorInfo): AcpError {
  const code =
    error.code === 'invalid_input'
      ? RPC.invalidParams
      : error.code === 'auth_required'
        ? RPC.authRequired
        : RPC.internalError;
  return { code, message: error.message, data: error };
}

/** Stop reasons a harness may report (Anthropic's coincide with ACP's) that ACP has a name for. */
const COMPLETED_STOP_REASONS: ReadonlySet<string> = new Set<StopReason>(['max_tokens', 'max_turn_requests', 'refusal']);

/** Token counts for PromptResponse.usage: ACP requires total, input and output, so all three or none. */
export function promptUsageOf(tokens: TokenUsage | undefined): Usage | undefined {
  if (tokens?.total === undefined || tokens.input === undefined || tokens.output === undefined) return undefined;
  return {
    totalTokens: tokens.total,
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    ...(tokens.reasoning !== undefined ? { thoughtTokens: tokens.reasoning } : {}),
    ...(tokens.cachedInput !== undefined ? { cachedReadTokens: tokens.cachedInput } : {}),
    ...(tokens.cacheWrite !== undefined ? { cachedWriteTokens: tokens.cacheWrite } : {}),
  };
}

/** A turn's terminal -> the session/prompt answer: a stop reason, or a JSON-RPC error for a failed turn. */
export function promptAnswer(event: TurnCompletedEvent): PromptAnswer {
  const outcome = event.outcome;
  switch (outcome.status) {
    case 'completed': {
      const stopReason =
        event.stopReason && COMPLETED_STOP_REASONS.has(event.stopReason)
          ? (event.stopReason as StopReason)
          : 'end_turn';
      const usage = promptUsageOf(event.usage?.turn);
      // ACP has no structured output; the agent's text carries it, and _meta keeps the parsed value.
      const meta =
        event.structuredOutput !== undefined ? { reins: { structuredOutput: event.structuredOutput } } : undefined;
      return { ok: true, response: { stopReason, ...(usage ? { usage } : {}), ...(meta ? { _meta: meta } : {}) } };
    }
    case 'cancelled':
      return { ok: true, response: { stopReason: 'cancelled' } };
    case 'failed':
      return { ok: false, error: acpErrorOf(outcome.error) };
    default:
      return assertNever(outcome, 'turn outcome');
  }
}
