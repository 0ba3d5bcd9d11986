// Pure translation of Reins session events into Codex app-server notifications, and of Reins items,
// errors and usage into Codex shapes (ThreadItem, TurnError, ThreadTokenUsage). No process, no I/O:
// server.ts feeds events in and writes out what comes back. One ThreadState per Codex thread.
//
// Rules:
// - A Codex turn is one or more Reins turns. turn/start opens one; input steered into it on a harness
//   that cannot steer runs as the next Reins turn inside the SAME Codex turn (Codex 0.169.0 treats
//   added input the same way: the turn ends when all its input has been answered), so turn/completed
//   goes out when the last of them ends.
// - The completed item is the truth and carries the whole text; deltas are previews (as in Codex).
// - Items Reins closed without a result (cancelled, or a text item of a failed turn) get no
//   item/completed: Codex never completes items an interrupt left open, and its clients close them
//   with the turn's status (the Reins Codex adapter does exactly that).
// - Absent is not zero: token counts the harness did not report are left out, never sent as 0.
import {
  assertNever,
  type ErrorInfo,
  type FileChange,
  type Item,
  type ItemStatus,
  type NoticeKind,
  type PlanEntry,
  type ReinsEvent,
  type SessionStatus,
  type ToolCallItem,
  type TurnCompletedEvent,
  type TurnOutcome,
  type Usage,
} from '@reins/core';
import type {
  BridgeNotification,
  CodexErrorInfo,
  FileUpdateChange,
  JsonValue,
  ReportedTokenBreakdown,
  ThreadItem,
  ThreadItemOf,
  ThreadStatus,
  TokenUsageNotification,
  Turn,
  TurnError,
  TurnPlanStep,
  TurnStatus,
  UserInput,
} from './wire.js';

// ---- state ----

/** One Codex turn: the Reins turns it is made of, and how far they are. */
export interface CodexTurn {
  /** The Codex turn id: the id of the Reins turn that opened it. */
  id: string;
  startedAtMs: number;
  /** Reins turns of this Codex turn that are running. */
  running: Set<string>;
  /** Reins turns delivered into it (steer on a harness without steer) that have not started yet. */
  awaiting: Set<string>;
  /** Reins turns of it that have ended. */
  ended: Set<string>;
  /** turn/steer requests whose send() has not answered yet: the turn cannot end before they do. */
  steersPending: number;
  interruptRequested: boolean;
  /** The terminal of the Reins turn that ended last. */
  lastTerminal: TurnCompletedEvent | undefined;
}

interface ItemProgress {
  /** What the Codex item is (a tool's output delta goes to the notification of its kind). */
  kind: ThreadItem['type'];
  startedAtMs: number;
  /** Output gathered from tool_output deltas, for a completed item that carries none. */
  output: string;
}

export interface ThreadState {
  threadId: string;
  cwd: string;
  model: string | undefined;
  effort: string | undefined;
  title: string | undefined;
  nativeSessionId: string | undefined;
  harnessVersion: string | undefined;
  status: SessionStatus | undefined;
  turn: CodexTurn | undefined;
  /** The id of the Codex turn that ended last (usage or errors that arrive after it). */
  lastTurnId: string | undefined;
  items: Map<string, ItemProgress>;
  /** Per Codex turn: the last plan and token usage sent (repeats are skipped). */
  lastPlan: string | undefined;
  lastUsage: string | undefined;
  /** The last agent message of the main thread in this Codex turn (structured output check). */
  lastAgentText: string | undefined;
}

export function createThreadState(init: {
  threadId: string;
  cwd: string;
  model?: string;
  effort?: string;
}): ThreadState {
  return {
    threadId: init.threadId,
    cwd: init.cwd,
    model: init.model,
    effort: init.effort,
    title: undefined,
    nativeSessionId: undefined,
    harnessVersion: undefined,
    status: undefined,
    turn: undefined,
    lastTurnId: undefined,
    items: new Map(),
    lastPlan: undefined,
    lastUsage: undefined,
    lastAgentText: undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

// ---- items ----

/** Where a subagent's items go: a child thread named after the tool call that spawned it. */
export function childThreadId(threadId: string, parentItemId: string): string {
  return `${threadId}:subagent:${parentItemId}`;
}

export interface ItemContext {
  threadId: string;
  /** The thread's cwd, for a command that does not name its own. */
  cwd: string;
  /** Output a tool streamed, for a completed tool item that carries none. */
  streamedOutput?: string;
}

function commandOf(item: ToolCallItem): string {
  const input = item.input;
  for (const key of ['command', 'cmd']) {
    const value = isRecord(input) ? input[key] : undefined;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value.join(' ');
  }
  return item.tool.title ?? item.tool.name;
}

function outputText(item: ToolCallItem, streamed: string | undefined): string | null {
  return item.output?.text ?? (streamed ? streamed : null);
}

/** Command and file statuses (Codex has no cancelled one: a tool that did not run to the end failed). */
function toolStatusOf(status: ItemStatus): 'inProgress' | 'completed' | 'failed' | 'declined' {
  switch (status) {
    case 'running':
      return 'inProgress';
    case 'completed':
    case 'failed':
    case 'declined':
      return status;
    case 'cancelled':
      return 'failed';
    default:
      return assertNever(status, 'item status');
  }
}

/** MCP and dynamic tool statuses: no declined either. */
function callStatusOf(status: ItemStatus): 'inProgress' | 'completed' | 'failed' {
  const mapped = toolStatusOf(status);
  return mapped === 'declined' ? 'failed' : mapped;
}

function fileChangeOf(change: FileChange): FileUpdateChange {
  // Codex requires a diff string; an empty one means "no diff reported" (its clients read it so).
  const diff = change.diff ?? '';
  switch (change.kind) {
    case 'add':
      return { path: change.path, kind: { type: 'add' }, diff };
    case 'delete':
      return { path: change.path, kind: { type: 'delete' }, diff };
    case 'update':
      return { path: change.path, kind: { type: 'update', move_path: null }, diff };
    case 'move':
      return { path: change.path, kind: { type: 'update', move_path: change.movePath ?? null }, diff };
    default:
      return assertNever(change.kind, 'file change kind');
  }
}

/** `mcp__server__tool` (the name Claude Code and the Reins Codex adapter give MCP tools) -> its parts. */
function mcpNameOf(name: string): { server: string; tool: string } {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  // Without that shape the server is not known: left empty rather than guessed.
  return match ? { server: match[1] as string, tool: match[2] as string } : { server: '', tool: name };
}

function toolItemOf(item: ToolCallItem, context: ItemContext): ThreadItem {
  const id = item.id;
  const text = outputText(item, context.streamedOutput);
  switch (item.tool.kind) {
    case 'command':
      return {
        type: 'commandExecution',
        id,
        pluginId: null,
        scriptPath: null,
        command: commandOf(item),
        cwd: stringField(item.input, 'cwd') ?? context.cwd,
        processId: null,
        source: 'agent',
        status: toolStatusOf(item.status),
        commandActions: [],
        aggregatedOutput: text,
        exitCode: item.exitCode ?? null,
        durationMs: null,
      };
    case 'file_change':
      return {
        type: 'fileChange',
        id,
        changes: (item.changes ?? []).map(fileChangeOf),
        status: toolStatusOf(item.status),
      };
    case 'mcp': {
      const { server, tool } = mcpNameOf(item.tool.name);
      const failed = item.status === 'failed' || item.status === 'declined' || item.status === 'cancelled';
      const ended = item.status !== 'running';
      return {
        type: 'mcpToolCall',
        id,
        server,
        tool,
        status: callStatusOf(item.status),
        arguments: (item.input ?? null) as JsonValue,
        appContext: null,
        mcpAppUi: null,
        pluginId: null,
        readOnlyHint: null,
        result:
          ended && !failed && (text !== null || item.output?.structured !== undefined)
            ? {
                content: text !== null ? [{ type: 'text', text }] : [],
                structuredContent: (item.output?.structured ?? null) as JsonValue | null,
                _meta: null,
              }
            : null,
        error: ended && failed ? { message: text ?? `The tool call ended ${item.status}.` } : null,
        durationMs: null,
      };
    }
    case 'web_search': {
      const structured = item.output?.structured;
      return {
        type: 'webSearch',
        id,
        query: stringField(item.input, 'query') ?? item.tool.title ?? '',
        action: null,
        results: Array.isArray(structured) ? (structured as ThreadItemOf<'webSearch'>['results']) : null,
      };
    }
    case 'subagent': {
      const child = childThreadId(context.threadId, id);
      const ended = item.status !== 'running';
      return {
        type: 'collabAgentToolCall',
        id,
        tool: 'spawnAgent',
        status: collabStatusOf(item.status),
        senderThreadId: context.threadId,
        receiverThreadIds: [child],
        prompt: stringField(item.input, 'prompt') ?? item.tool.title ?? null,
        model: stringField(item.input, 'model') ?? null,
        reasoningEffort: null,
        // The subagent's answer has no other place on this item.
        agentsStates: ended ? { [child]: { status: agentStatusOf(item.status), message: text } } : {},
      };
    }
    case 'other':
      return {
        type: 'dynamicToolCall',
        id,
        namespace: null,
        tool: item.tool.name,
        arguments: (item.input ?? null) as JsonValue,
        status: callStatusOf(item.status),
        contentItems: text !== null ? [{ type: 'inputText', text }] : null,
        success: item.status === 'completed' ? true : item.status === 'running' ? null : false,
        durationMs: null,
      };
    default:
      return assertNever(item.tool.kind, 'tool kind');
  }
}

function collabStatusOf(status: ItemStatus): ThreadItemOf<'collabAgentToolCall'>['status'] {
  if (status === 'cancelled') return 'interrupted';
  return callStatusOf(status);
}

function agentStatusOf(status: ItemStatus): 'completed' | 'errored' | 'interrupted' | 'running' {
  switch (status) {
    case 'running':
      return 'running';
    case 'completed':
      return 'completed';
    case 'cancelled':
      return 'interrupted';
    case 'failed':
    case 'declined':
      return 'errored';
    default:
      return assertNever(status, 'item status');
  }
}

function userContentOf(item: Item & { kind: 'user_message' }): UserInput[] {
  const content: UserInput[] = [];
  if (item.text !== '' || !item.images?.length) content.push({ type: 'text', text: item.text, text_elements: [] });
  for (const image of item.images ?? []) {
    if (image.source === 'path' && image.path) content.push({ type: 'localImage', path: image.path });
    else if (image.source === 'data' && image.data) {
      content.push({ type: 'image', url: `data:${image.mediaType ?? 'image/png'};base64,${image.data}` });
    }
  }
  return content;
}

function planStatusOf(status: PlanEntry['status']): TurnPlanStep['status'] {
  return status === 'in_progress' ? 'inProgress' : status;
}

/**
 * A Reins item as the Codex ThreadItem closest to it: agent_message -> agentMessage, reasoning ->
 * reasoning, tool calls by kind -> commandExecution / fileChange / mcpToolCall / webSearch /
 * collabAgentToolCall (subagent) / dynamicToolCall (anything else), plan -> plan (its entries as
 * lines; live plans go out as turn/plan/updated instead), compaction -> contextCompaction.
 */
export function threadItemOf(item: Item, context: ItemContext): ThreadItem {
  switch (item.kind) {
    case 'user_message':
      return { type: 'userMessage', id: item.id, clientId: null, content: userContentOf(item) };
    case 'agent_message':
      return {
        type: 'agentMessage',
        id: item.id,
        text: item.text,
        moderation: null,
        phase: null,
        memoryCitation: null,
        delivery: null,
        questions: null,
      };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: item.id,
        summary: item.summary ? [item.summary] : [],
        content: item.text ? [item.text] : [],
      };
    case 'tool_call':
      return toolItemOf(item, context);
    case 'plan':
      return {
        type: 'plan',
        id: item.id,
        text: item.entries.map((entry) => `- [${entry.status}] ${entry.text}`).join('\n'),
      };
    case 'compaction':
      return { type: 'contextCompaction', id: item.id };
    default:
      return assertNever(item, 'item');
  }
}

/**
 * The item with its lifecycle times. Codex clients read a text item without completedAtMs as still
 * running (the Reins Codex adapter does), so live items carry both; history has no times to give.
 */
function timed(item: ThreadItem, startedAtMs: number | null, completedAtMs: number | null): ThreadItem {
  return Object.assign(item, { startedAtMs, completedAtMs });
}

/** Whether item/completed goes out for an item Reins settled with this status (see the header). */
function completesOnWire(item: Item): boolean {
  if (item.status === 'cancelled') return false;
  if (item.status === 'failed' && item.kind !== 'tool_call') return false;
  return true;
}

// ---- errors and usage ----

const PROVIDER_ERROR_INFO: Partial<Record<string, CodexErrorInfo>> = {
  // 429 from the provider: a rate limit, not the plan's usage limit (usageLimitExceeded).
  rate_limited: 'rateLimitExceeded',
  overloaded: 'serverOverloaded',
  server_error: 'internalServerError',
  context_window_exceeded: 'contextWindowExceeded',
  bad_request: 'badRequest',
  connection_failed: { httpConnectionFailed: { httpStatusCode: null } },
};

/** The Reins error's structured kind -> Codex's codexErrorInfo; `other` where Codex has no such kind. */
export function codexErrorInfoOf(error: ErrorInfo): CodexErrorInfo {
  switch (error.code) {
    case 'unsupported_model':
      return 'modelNotFound';
    case 'auth_required':
      return 'unauthorized';
    case 'provider_error': {
      const kind = error.data?.kind;
      return (typeof kind === 'string' ? PROVIDER_ERROR_INFO[kind] : undefined) ?? 'other';
    }
    default:
      return 'other';
  }
}

/**
 * A Reins error as a Codex TurnError. Codex has no field for the Reins code itself, so it rides in
 * additionalDetails as JSON (`{"reins":{"code":...}}`) for clients that look; the message is Reins'.
 */
export function turnErrorOf(error: ErrorInfo): TurnError {
  const reins = {
    code: error.code,
    ...(error.retryable !== undefined ? { retryable: error.retryable } : {}),
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
  return {
    message: error.message,
    codexErrorInfo: codexErrorInfoOf(error),
    additionalDetails: JSON.stringify({ reins }),
    misalignment: null,
  };
}

/**
 * Reins usage -> Codex's ThreadTokenUsage. `total` is the thread total the harness reported; `last`
 * (Codex: the last model request) carries only its size, which is what Reins calls the context used;
 * the window is the model's context window. Counts Reins does not have are left out.
 */
export function tokenUsageOf(usage: Usage): TokenUsageNotification['params']['tokenUsage'] {
  const total: ReportedTokenBreakdown = {};
  const reported = usage.total;
  if (reported?.total !== undefined) total.totalTokens = reported.total;
  if (reported?.input !== undefined) total.inputTokens = reported.input;
  if (reported?.cachedInput !== undefined) total.cachedInputTokens = reported.cachedInput;
  if (reported?.cacheWrite !== undefined) total.cacheWriteInputTokens = reported.cacheWrite;
  if (reported?.output !== undefined) total.outputTokens = reported.output;
  if (reported?.reasoning !== undefined) total.reasoningOutputTokens = reported.reasoning;
  const last: ReportedTokenBreakdown = usage.context?.used !== undefined ? { totalTokens: usage.context.used } : {};
  return { total, last, modelContextWindow: usage.context?.window ?? null };
}

// ---- turns ----

function turnStatusOf(outcome: TurnOutcome): TurnStatus {
  switch (outcome.status) {
    case 'completed':
      return 'completed';
    case 'cancelled':
      return 'interrupted';
    case 'failed':
      return 'failed';
    default:
      return assertNever(outcome, 'turn outcome');
  }
}

function turnObject(turn: CodexTurn, status: TurnStatus, error: TurnError | null, endedAtMs?: number): Turn {
  return {
    id: turn.id,
    rootTurnId: turn.id,
    items: [],
    itemsView: 'notLoaded',
    status,
    error,
    startedAt: seconds(turn.startedAtMs),
    completedAt: endedAtMs === undefined ? null : seconds(endedAtMs),
    durationMs: endedAtMs === undefined ? null : endedAtMs - turn.startedAtMs,
  };
}

/** The Codex turn's answer to turn/start (it runs; nothing more is known yet). */
export function startedTurn(id: string, atMs: number): Turn {
  return turnObject(newTurn(id, atMs), 'inProgress', null);
}

function newTurn(id: string, atMs: number): CodexTurn {
  return {
    id,
    startedAtMs: atMs,
    running: new Set(),
    awaiting: new Set(),
    ended: new Set(),
    steersPending: 0,
    interruptRequested: false,
    lastTerminal: undefined,
  };
}

function isSettled(turn: CodexTurn): boolean {
  return turn.running.size === 0 && turn.awaiting.size === 0 && turn.steersPending === 0;
}

/** Ends the open Codex turn with the outcome of the Reins turn that ended last. */
function finishTurn(state: ThreadState, atMs: number): BridgeNotification[] {
  const turn = state.turn;
  if (!turn) return [];
  state.turn = undefined;
  state.lastTurnId = turn.id;
  const outcome: TurnOutcome = turn.lastTerminal?.outcome ?? {
    status: 'failed',
    error: { code: 'process_exited', message: 'The harness session ended before the turn did.' },
  };
  const error = outcome.status === 'failed' ? turnErrorOf(outcome.error) : null;
  return [
    {
      method: 'turn/completed',
      params: { threadId: state.threadId, turn: turnObject(turn, turnStatusOf(outcome), error, atMs) },
    },
  ];
}

/**
 * A turn/steer (or a turn/start while a turn runs) is about to call send(): the open Codex turn
 * cannot end until it answers. Returns the open turn's id, or undefined when no turn is open.
 */
export function beginSteer(state: ThreadState): string | undefined {
  if (!state.turn) return undefined;
  state.turn.steersPending++;
  return state.turn.id;
}

/**
 * The send() of a steer answered (`delivered`) or failed (undefined). Input the harness queued
 * instead of steering joins the Codex turn; if the turn had only been waiting for this, it ends now.
 */
export function endSteer(
  state: ThreadState,
  codexTurnId: string,
  delivered: { turnId: string; delivery: 'started' | 'queued' | 'steered' } | undefined,
  atMs: number,
): BridgeNotification[] {
  const turn = state.turn;
  if (!turn || turn.id !== codexTurnId) return [];
  turn.steersPending = Math.max(0, turn.steersPending - 1);
  if (delivered && delivered.delivery !== 'steered') {
    const seen = turn.running.has(delivered.turnId) || turn.ended.has(delivered.turnId);
    if (!seen) turn.awaiting.add(delivered.turnId);
  }
  return isSettled(turn) && turn.lastTerminal ? finishTurn(state, atMs) : [];
}

/** turn/interrupt for `codexTurnId`: true when it is the open turn (its Reins turns are to be stopped). */
export function requestInterrupt(state: ThreadState, codexTurnId: string): boolean {
  if (!state.turn || state.turn.id !== codexTurnId) return false;
  state.turn.interruptRequested = true;
  return true;
}

/** The Codex turn id a Reins turn belongs to. */
export function codexTurnIdOf(state: ThreadState, reinsTurnId: string | null): string | undefined {
  if (reinsTurnId === null || !state.turn) return undefined;
  const turn = state.turn;
  return turn.running.has(reinsTurnId) || turn.awaiting.has(reinsTurnId) || turn.ended.has(reinsTurnId)
    ? turn.id
    : undefined;
}

function turnStarted(state: ThreadState, event: ReinsEvent & { type: 'turn.started' }): BridgeNotification[] {
  if (event.turnId === null) return [];
  if (state.turn) {
    // A Reins turn that starts while a Codex turn is open is input delivered into it.
    state.turn.awaiting.delete(event.turnId);
    state.turn.running.add(event.turnId);
    return [];
  }
  const turn = newTurn(event.turnId, event.at);
  turn.running.add(event.turnId);
  state.turn = turn;
  state.lastPlan = undefined;
  state.lastUsage = undefined;
  state.lastAgentText = undefined;
  return [{ method: 'turn/started', params: { threadId: state.threadId, turn: turnObject(turn, 'inProgress', null) } }];
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function turnCompleted(state: ThreadState, event: TurnCompletedEvent): BridgeNotification[] {
  const turn = state.turn;
  if (!turn || event.turnId === null) return [];
  turn.running.delete(event.turnId);
  turn.awaiting.delete(event.turnId);
  turn.ended.add(event.turnId);
  turn.lastTerminal = event;
  const out: BridgeNotification[] = [];
  if (event.usage) out.push(...usageNotification(state, event.usage, turn.id));
  if (event.outcome.status === 'completed' && event.structuredOutput !== undefined) {
    // Codex carries structured output as the turn's final agent message (clients parse its text).
    // A harness that returned it out of band (Claude Code's StructuredOutput tool) gets that message
    // here, holding the value the harness validated, unless its last message already says it.
    const text = JSON.stringify(event.structuredOutput);
    if (state.lastAgentText === undefined || !sameJson(state.lastAgentText, event.structuredOutput)) {
      const id = `${event.turnId}-structured-output`;
      const context = { threadId: state.threadId, cwd: state.cwd };
      const started = threadItemOf({ kind: 'agent_message', id, status: 'running', text: '' }, context);
      const completed = threadItemOf({ kind: 'agent_message', id, status: 'completed', text }, context);
      const common = { threadId: state.threadId, turnId: turn.id };
      out.push(
        { method: 'item/started', params: { ...common, item: timed(started, event.at, null), startedAtMs: event.at } },
        {
          method: 'item/completed',
          params: { ...common, item: timed(completed, event.at, event.at), completedAtMs: event.at },
        },
      );
      state.lastAgentText = text;
    }
  }
  if (!isSettled(turn)) {
    // More input of this Codex turn is still to run: a failure so far is told now, not lost.
    if (event.outcome.status === 'failed') out.push(errorNotification(state, event.outcome.error, turn.id));
    return out;
  }
  out.push(...finishTurn(state, event.at));
  return out;
}

// ---- other events ----

function errorNotification(
  state: ThreadState,
  error: ErrorInfo,
  turnId: string,
  willRetry = false,
): BridgeNotification {
  return { method: 'error', params: { error: turnErrorOf(error), willRetry, threadId: state.threadId, turnId } };
}

function usageNotification(state: ThreadState, usage: Usage, turnId: string): BridgeNotification[] {
  if (!usage.total && !usage.context) return [];
  const tokenUsage = tokenUsageOf(usage);
  const snapshot = JSON.stringify(tokenUsage);
  if (snapshot === state.lastUsage) return [];
  state.lastUsage = snapshot;
  return [{ method: 'thread/tokenUsage/updated', params: { threadId: state.threadId, turnId, tokenUsage } }];
}

function threadStatusOf(status: SessionStatus): ThreadStatus {
  switch (status) {
    case 'idle':
      return { type: 'idle' };
    case 'running':
      return { type: 'active', activeFlags: [] };
    case 'requires_action':
      return { type: 'active', activeFlags: ['waitingOnApproval'] };
    default:
      return assertNever(status, 'session status');
  }
}

function noticeNotification(state: ThreadState, event: ReinsEvent & { type: 'notice' }): BridgeNotification[] {
  const kind: NoticeKind = event.kind;
  switch (kind) {
    case 'retry': {
      // Codex reports a retry as an error that will be retried.
      const turnId = state.turn?.id;
      if (!turnId) return [];
      const error: ErrorInfo = { code: 'provider_error', message: event.message, retryable: true };
      return [errorNotification(state, error, turnId, true)];
    }
    case 'deprecation':
      return [{ method: 'deprecationNotice', params: { summary: event.message, details: null } }];
    case 'warning':
    case 'rate_limit':
    case 'metered_key':
      return [{ method: 'warning', params: { threadId: state.threadId, message: event.message } }];
    // Compaction shows as its contextCompaction item; hooks and plain information have no Codex
    // notification that takes free text (hook/started wants Codex's own hook run records).
    case 'compaction':
    case 'hook':
    case 'info':
      return [];
    default:
      return assertNever(kind, 'notice kind');
  }
}

function itemEvent(
  state: ThreadState,
  event: ReinsEvent & { type: 'item.started' | 'item.completed' },
): BridgeNotification[] {
  const turnId = codexTurnIdOf(state, event.turnId);
  // Items outside a turn are history a resume replayed: thread/resume and thread/items/list carry it.
  if (!turnId) return [];
  const item = event.item;
  const threadId = event.parentItemId ? childThreadId(state.threadId, event.parentItemId) : state.threadId;
  if (item.kind === 'plan') {
    // A plan with statuses is Codex's turn plan (its todo list), sent whole on every change.
    if (event.parentItemId || item.entries.length === 0) return [];
    const plan = item.entries.map((entry) => ({ step: entry.text, status: planStatusOf(entry.status) }));
    const snapshot = JSON.stringify(plan);
    if (snapshot === state.lastPlan) return [];
    state.lastPlan = snapshot;
    return [{ method: 'turn/plan/updated', params: { threadId: state.threadId, turnId, explanation: null, plan } }];
  }
  const context: ItemContext = { threadId: state.threadId, cwd: state.cwd };
  if (event.type === 'item.started') {
    const threadItem = timed(threadItemOf(item, context), event.at, null);
    state.items.set(item.id, { kind: threadItem.type, startedAtMs: event.at, output: '' });
    return [{ method: 'item/started', params: { item: threadItem, threadId, turnId, startedAtMs: event.at } }];
  }
  const progress = state.items.get(item.id);
  state.items.delete(item.id);
  if (!completesOnWire(item)) return [];
  if (item.kind === 'agent_message' && !event.parentItemId) state.lastAgentText = item.text;
  const threadItem = timed(
    threadItemOf(item, { ...context, ...(progress ? { streamedOutput: progress.output } : {}) }),
    progress?.startedAtMs ?? null,
    event.at,
  );
  return [{ method: 'item/completed', params: { item: threadItem, threadId, turnId, completedAtMs: event.at } }];
}

function deltaEvent(state: ThreadState, event: ReinsEvent & { type: 'item.delta' }): BridgeNotification[] {
  const turnId = codexTurnIdOf(state, event.turnId);
  if (!turnId || event.text === '') return [];
  const threadId = event.parentItemId ? childThreadId(state.threadId, event.parentItemId) : state.threadId;
  const common = { threadId, turnId, itemId: event.itemId };
  switch (event.kind) {
    case 'text':
      return [{ method: 'item/agentMessage/delta', params: { ...common, delta: event.text } }];
    case 'reasoning':
      return [{ method: 'item/reasoning/textDelta', params: { ...common, delta: event.text, contentIndex: 0 } }];
    case 'tool_output': {
      const progress = state.items.get(event.itemId);
      if (!progress) return [];
      progress.output += event.text;
      if (progress.kind === 'commandExecution') {
        return [{ method: 'item/commandExecution/outputDelta', params: { ...common, delta: event.text } }];
      }
      if (progress.kind === 'mcpToolCall') {
        return [{ method: 'item/mcpToolCall/progress', params: { ...common, message: event.text } }];
      }
      // Other tools have no output notification in Codex 0.169.0 (it no longer sends the fileChange
      // one); their completed item carries the output.
      return [];
    }
    // Codex streams no tool input; the item carries the whole input.
    case 'tool_input':
      return [];
    default:
      return assertNever(event.kind, 'delta kind');
  }
}

/** One Reins event -> the Codex notifications it becomes (often none). */
export function translateEvent(state: ThreadState, event: ReinsEvent): BridgeNotification[] {
  switch (event.type) {
    case 'session.started':
      state.model ??= event.model;
      state.harnessVersion = event.harnessVersion;
      return [];
    case 'session.updated': {
      if (event.model) state.model = event.model;
      if (event.effort) state.effort = event.effort;
      if (event.nativeSessionId) state.nativeSessionId = event.nativeSessionId;
      // The thread id never changes, so a native id learned later has no Codex place; mode, tools
      // and apiKeySource have none either.
      if (event.title === undefined || event.title === state.title) return [];
      state.title = event.title;
      return [{ method: 'thread/name/updated', params: { threadId: state.threadId, threadName: event.title } }];
    }
    case 'session.status':
      state.status = event.status;
      return [
        { method: 'thread/status/changed', params: { threadId: state.threadId, status: threadStatusOf(event.status) } },
      ];
    case 'session.closed': {
      // The turn ended with the session (Reins completes it first); a Codex turn still waiting for
      // steered input that will never run ends here.
      const out = state.turn ? finishTurn(state, event.at) : [];
      out.push({ method: 'thread/closed', params: { threadId: state.threadId } });
      return out;
    }
    case 'turn.started':
      return turnStarted(state, event);
    case 'turn.completed':
      return turnCompleted(state, event);
    case 'item.started':
    case 'item.completed':
      return itemEvent(state, event);
    case 'item.delta':
      return deltaEvent(state, event);
    case 'usage.updated': {
      // A subagent's own usage is not the thread's.
      if (event.parentItemId) return [];
      const turnId = state.turn?.id ?? state.lastTurnId;
      return turnId ? usageNotification(state, event, turnId) : [];
    }
    case 'notice':
      return noticeNotification(state, event);
    case 'error': {
      const turnId = state.turn?.id ?? state.lastTurnId;
      // Codex's error notification names a turn; before the first one, a warning carries the words.
      if (!turnId) return [{ method: 'warning', params: { threadId: state.threadId, message: event.message } }];
      return [errorNotification(state, event, turnId)];
    }
    // server.ts asks the client (a server -> client request) and tells it when the harness settled it.
    case 'permission.requested':
    case 'permission.resolved':
    // Native frames of the harness underneath mean nothing to a Codex client.
    case 'passthrough':
      return [];
    default:
      return assertNever(event, 'event');
  }
}

// ---- history ----

/** Settled items of a stored conversation as Codex turns: each user message opens a turn. */
export function historyTurns(items: Item[], context: Omit<ItemContext, 'streamedOutput'>): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | undefined;
  for (const item of items) {
    if (item.kind === 'user_message' || !current) {
      current = {
        id: `history-${turns.length + 1}`,
        rootTurnId: null,
        items: [],
        itemsView: 'full',
        status: 'completed',
        error: null,
        startedAt: null,
        completedAt: null,
        durationMs: null,
      };
      turns.push(current);
    }
    current.items.push(threadItemOf(item, context));
  }
  return turns;
}
