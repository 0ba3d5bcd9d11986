// Codex app-server frames -> Reins event payloads. Pure: no process, no clock, no I/O; the adapter
// owns the turn lifecycle (turn/started, turn/completed, queueing, structured output) and calls
// these functions for everything else. Tested on frames recorded from the real CLI (fixtures/).
import {
  assertNever,
  EFFORT_LEVELS,
  type Effort,
  type ErrorInfo,
  ErrorInfoSchema,
  type EventPayload,
  type FileChange,
  type Item,
  type ItemStatus,
  type ModelInfo,
  type PlanEntry,
  type ProviderErrorKind,
  type SessionStatus,
  type TokenUsage,
  type TurnOutcome,
  type Usage,
  unsupportedModelError,
} from '@reins/core';
import type {
  CodexErrorInfo,
  FileUpdateChange,
  Model,
  ServerNotification,
  ThreadItem,
  ThreadStatus,
  ThreadTokenUsage,
  TokenUsageBreakdown,
  Turn,
  TurnError,
  TurnPlanStep,
} from './wire.js';

export const NATIVE_SOURCE = 'codex.app-server';

export interface TranslateState {
  /** The session's own thread. Frames about other threads belong to subagents or are strays. */
  threadId: string | undefined;
  /** Child (subagent) thread id -> id of the collabAgentToolCall item that spawned it. */
  childThreads: Map<string, string>;
  /** The thread's token total when the running turn started; undefined when not known. */
  totalAtTurnStart: TokenUsageBreakdown | undefined;
  /** The last thread total Codex reported. */
  lastTotal: TokenUsageBreakdown | undefined;
  /** Reins turn id of the running turn, for the id of its plan item. */
  turnId: string | undefined;
  /** Plan snapshots seen in the running turn. */
  planCount: number;
}

export function createTranslateState(threadId?: string): TranslateState {
  return {
    threadId,
    childThreads: new Map(),
    totalAtTurnStart: undefined,
    lastTotal: undefined,
    turnId: undefined,
    planCount: 0,
  };
}

export interface Translated {
  payload: EventPayload;
  /** Set for events from a subagent's thread: the tool_call item that spawned it. */
  parentItemId?: string;
}

/** A notification as it came off the wire; `method` may be one this Codex version does not know. */
export interface NotificationFrame {
  method: string;
  params?: unknown;
  [key: string]: unknown;
}

const passthrough = (frame: unknown, parentItemId?: string): Translated =>
  parentItemId === undefined
    ? { payload: { type: 'passthrough', frame } }
    : { payload: { type: 'passthrough', frame }, parentItemId };

function threadIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const id = (params as { threadId?: unknown }).threadId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Where a frame belongs: the session's thread (`main`), a subagent's thread (`child`, with the item that
 * spawned it), or neither (`other`). Frames without a thread id (warnings, account) count as main.
 */
function scopeOf(
  state: TranslateState,
  params: unknown,
): { kind: 'main' } | { kind: 'child'; parentItemId: string; threadId: string } | { kind: 'other' } {
  const threadId = threadIdOf(params);
  if (threadId === undefined || state.threadId === undefined || threadId === state.threadId) return { kind: 'main' };
  const parentItemId = state.childThreads.get(threadId);
  return parentItemId === undefined ? { kind: 'other' } : { kind: 'child', parentItemId, threadId };
}

/** Translates one server notification other than turn/started and turn/completed (the adapter's). */
export function translateNotification(state: TranslateState, frame: NotificationFrame): Translated[] {
  const scope = scopeOf(state, frame.params);
  if (scope.kind === 'other') return [passthrough(frame)];
  const parentItemId = scope.kind === 'child' ? scope.parentItemId : undefined;
  // Item ids are only unique within a thread: a subagent's items get its thread id in front.
  const idPrefix = scope.kind === 'child' ? `${scope.threadId}:` : '';
  const withParent = (payload: EventPayload): Translated =>
    parentItemId === undefined ? { payload } : { payload, parentItemId };
  const notification = frame as unknown as ServerNotification;

  switch (notification.method) {
    case 'item/started':
    case 'item/completed': {
      const { item } = notification.params;
      if (item.type === 'collabAgentToolCall') {
        for (const receiver of item.receiverThreadIds) state.childThreads.set(receiver, idPrefix + item.id);
      }
      const mapped = toItem(item, idPrefix);
      if (!mapped) return [passthrough(frame, parentItemId)];
      const type = notification.method === 'item/started' ? 'item.started' : 'item.completed';
      return [withParent({ type, item: mapped })];
    }
    case 'item/agentMessage/delta':
    case 'item/plan/delta':
      return [withParent(delta(idPrefix + notification.params.itemId, 'text', notification.params.delta))];
    case 'item/reasoning/summaryTextDelta':
    case 'item/reasoning/textDelta':
      return [withParent(delta(idPrefix + notification.params.itemId, 'reasoning', notification.params.delta))];
    case 'item/commandExecution/outputDelta':
    case 'item/fileChange/outputDelta':
      return [withParent(delta(idPrefix + notification.params.itemId, 'tool_output', notification.params.delta))];
    case 'item/mcpToolCall/progress':
      return [withParent(delta(idPrefix + notification.params.itemId, 'tool_output', notification.params.message))];
    default:
      break;
  }
  // Everything below describes the session's own thread; a subagent's copy stays native.
  if (scope.kind === 'child') return [passthrough(frame, parentItemId)];

  switch (notification.method) {
    case 'thread/started': {
      const { thread } = notification.params;
      if (state.threadId !== undefined && thread.id !== state.threadId) return [passthrough(frame)];
      return [
        {
          payload: {
            type: 'session.updated',
            nativeSessionId: thread.id,
            ...(thread.model ? { model: thread.model } : {}),
            ...(thread.name ? { title: thread.name } : {}),
          },
        },
      ];
    }
    case 'thread/name/updated':
      return notification.params.threadName === undefined
        ? [passthrough(frame)]
        : [{ payload: { type: 'session.updated', title: notification.params.threadName } }];
    case 'thread/status/changed': {
      const status = sessionStatusOf(notification.params.status);
      return status ? [{ payload: { type: 'session.status', status } }] : [passthrough(frame)];
    }
    case 'thread/tokenUsage/updated':
      return [{ payload: { type: 'usage.updated', ...usageOf(state, notification.params.tokenUsage) } }];
    case 'turn/plan/updated': {
      // Codex sends the whole plan on every update. Each update is one settled snapshot item with its own
      // id (plan-<turn>-<n>), so ids stay unique and the latest snapshot is the current plan.
      state.planCount++;
      const id = `plan-${state.turnId ?? notification.params.turnId}-${state.planCount}`;
      const entries = notification.params.plan.map(planEntry);
      return [
        { payload: { type: 'item.started', item: { kind: 'plan', id, status: 'running', entries } } },
        { payload: { type: 'item.completed', item: { kind: 'plan', id, status: 'completed', entries } } },
      ];
    }
    case 'turn/diff/updated':
      return [
        {
          payload: {
            type: 'notice',
            kind: 'info',
            message: 'The turn diff changed.',
            data: { diff: notification.params.diff },
          },
        },
      ];
    case 'error': {
      const { error, willRetry } = notification.params;
      if (willRetry) {
        return [{ payload: { type: 'notice', kind: 'retry', message: error.message, data: errorData(error) } }];
      }
      const info = errorInfoOf(error);
      return [{ payload: { type: 'error', ...info, fatal: false } }];
    }
    case 'warning':
    case 'guardianWarning':
      return [{ payload: { type: 'notice', kind: 'warning', message: notification.params.message } }];
    case 'configWarning':
      return [
        {
          payload: {
            type: 'notice',
            kind: 'warning',
            message: notification.params.summary,
            ...(notification.params.details ? { data: { details: notification.params.details } } : {}),
          },
        },
      ];
    case 'deprecationNotice':
      return [{ payload: { type: 'notice', kind: 'deprecation', message: notification.params.summary } }];
    case 'thread/compacted':
      return [{ payload: { type: 'notice', kind: 'compaction', message: 'Codex compacted the conversation.' } }];
    case 'model/rerouted': {
      const { fromModel, toModel, reason } = notification.params;
      return [
        { payload: { type: 'session.updated', model: toModel } },
        {
          payload: {
            type: 'notice',
            kind: 'info',
            message: `Codex rerouted the turn from ${fromModel} to ${toModel}.`,
            data: { fromModel, toModel, reason },
          },
        },
      ];
    }
    case 'account/rateLimits/updated':
      return [
        {
          payload: {
            type: 'notice',
            kind: 'rate_limit',
            message: 'Codex reported rate limits.',
            data: notification.params.rateLimits,
          },
        },
      ];
    case 'hook/started':
    case 'hook/completed':
      return [
        {
          payload: {
            type: 'notice',
            kind: 'hook',
            message: notification.method === 'hook/started' ? 'A hook started.' : 'A hook completed.',
            data: notification.params,
          },
        },
      ];
    default:
      return [passthrough(frame)];
  }
}

function delta(itemId: string, kind: 'text' | 'reasoning' | 'tool_output', text: string): EventPayload {
  return { type: 'item.delta', itemId, kind, text };
}

function sessionStatusOf(status: ThreadStatus): SessionStatus | undefined {
  switch (status.type) {
    case 'idle':
      return 'idle';
    case 'active':
      return status.activeFlags.length > 0 ? 'requires_action' : 'running';
    case 'notLoaded':
    case 'systemError':
      return undefined;
    default:
      return assertNever(status, 'thread status');
  }
}

function planEntry(step: TurnPlanStep): PlanEntry {
  const status = step.status === 'inProgress' ? 'in_progress' : step.status;
  return { text: step.step, status };
}

// ---- items -------------------------------------------------------------------------------------

function itemStatus(status: 'inProgress' | 'completed' | 'failed' | 'declined' | 'interrupted'): ItemStatus {
  switch (status) {
    case 'inProgress':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'declined':
      return 'declined';
    case 'interrupted':
      return 'cancelled';
    default:
      return assertNever(status, 'item status');
  }
}

/** Text items have no status on the wire: started means running, a completedAtMs means done. */
function lifecycleStatus(item: { completedAtMs?: number | null }): ItemStatus {
  return item.completedAtMs === null || item.completedAtMs === undefined ? 'running' : 'completed';
}

function fileChange(change: FileUpdateChange): FileChange {
  const base = { path: change.path, ...(change.diff ? { diff: change.diff } : {}) };
  switch (change.kind.type) {
    case 'add':
      return { ...base, kind: 'add' };
    case 'delete':
      return { ...base, kind: 'delete' };
    case 'update':
      return change.kind.move_path
        ? { ...base, kind: 'move', movePath: change.kind.move_path }
        : { ...base, kind: 'update' };
    default:
      return assertNever(change.kind, 'patch change kind');
  }
}

function textOfMcpContent(content: unknown[]): string | undefined {
  const texts = content
    .map((part) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : undefined,
    )
    .filter((text): text is string => text !== undefined);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * A Codex ThreadItem as a Reins item; undefined for kinds Reins has no item for (they pass through).
 * `idPrefix` keeps a subagent's item ids apart from the parent thread's.
 */
export function toItem(item: ThreadItem, idPrefix = ''): Item | undefined {
  const id = idPrefix + item.id;
  switch (item.type) {
    case 'userMessage': {
      const text = item.content
        .map((part) => (part.type === 'text' ? part.text : ''))
        .filter((part) => part !== '')
        .join('\n');
      const images = item.content.flatMap((part) =>
        part.type === 'localImage' ? [{ source: 'path' as const, path: part.path }] : [],
      );
      return {
        kind: 'user_message',
        id,
        status: lifecycleStatus(item),
        text,
        ...(images.length > 0 ? { images } : {}),
      };
    }
    case 'agentMessage':
      return { kind: 'agent_message', id, status: lifecycleStatus(item), text: item.text };
    case 'reasoning': {
      const summary = item.summary.join('\n\n');
      return {
        kind: 'reasoning',
        id,
        status: lifecycleStatus(item),
        text: item.content.join('\n\n'),
        ...(summary ? { summary } : {}),
      };
    }
    case 'commandExecution':
      return {
        kind: 'tool_call',
        id,
        status: itemStatus(item.status),
        tool: { kind: 'command', name: 'exec_command', title: item.command },
        input: { command: item.command, cwd: item.cwd },
        ...(item.aggregatedOutput !== null || item.status !== 'inProgress'
          ? {
              output: {
                ...(item.aggregatedOutput !== null ? { text: item.aggregatedOutput } : {}),
                structured: {
                  commandActions: item.commandActions,
                  source: item.source,
                  processId: item.processId,
                  durationMs: item.durationMs,
                },
              },
            }
          : {}),
        ...(item.exitCode !== null ? { exitCode: item.exitCode } : {}),
      };
    case 'fileChange':
      return {
        kind: 'tool_call',
        id,
        status: itemStatus(item.status),
        tool: { kind: 'file_change', name: 'apply_patch' },
        input: { changes: item.changes },
        changes: item.changes.map(fileChange),
      };
    case 'mcpToolCall': {
      const text = item.error ? item.error.message : item.result ? textOfMcpContent(item.result.content) : undefined;
      return {
        kind: 'tool_call',
        id,
        status: itemStatus(item.status),
        tool: { kind: 'mcp', name: `mcp__${item.server}__${item.tool}`, title: `${item.server}: ${item.tool}` },
        input: item.arguments,
        ...(item.result || item.error
          ? { output: { ...(text !== undefined ? { text } : {}), structured: item.result ?? item.error } }
          : {}),
      };
    }
    case 'dynamicToolCall':
      return {
        kind: 'tool_call',
        id,
        status: itemStatus(item.status),
        tool: { kind: 'other', name: item.namespace ? `${item.namespace}.${item.tool}` : item.tool },
        input: item.arguments,
        ...(item.contentItems ? { output: { structured: item.contentItems } } : {}),
      };
    case 'webSearch':
      return {
        kind: 'tool_call',
        id,
        // A search has no status on the wire; its completed notification carries the results.
        status: lifecycleStatus(item),
        tool: { kind: 'web_search', name: 'web_search', ...(item.query ? { title: item.query } : {}) },
        input: { query: item.query, action: item.action },
        ...(item.results ? { output: { structured: item.results } } : {}),
      };
    case 'collabAgentToolCall':
      return {
        kind: 'tool_call',
        id,
        status: itemStatus(item.status),
        tool: { kind: 'subagent', name: item.tool, ...(item.prompt ? { title: item.prompt } : {}) },
        input: {
          prompt: item.prompt,
          model: item.model,
          reasoningEffort: item.reasoningEffort,
          receiverThreadIds: item.receiverThreadIds,
        },
        output: { structured: { agentsStates: item.agentsStates, receiverThreadIds: item.receiverThreadIds } },
      };
    case 'plan':
      return { kind: 'plan', id, status: lifecycleStatus(item), entries: [{ text: item.text, status: 'pending' }] };
    case 'contextCompaction':
      // Codex reports no token counts for a compaction; absent, not zero.
      return { kind: 'compaction', id, status: lifecycleStatus(item) };
    case 'imageView':
      return {
        kind: 'tool_call',
        id,
        status: lifecycleStatus(item),
        tool: { kind: 'other', name: 'view_image', title: item.path },
        input: { path: item.path },
      };
    case 'hookPrompt':
    case 'functionCallOutput':
    case 'subAgentActivity':
    case 'sleep':
    case 'imageGeneration':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return undefined;
    default:
      return assertNever(item, 'thread item');
  }
}

// ---- usage -------------------------------------------------------------------------------------

/** A count Codex reported; anything else (a peer that leaves a field out, like our own bridge) is absent. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

const BREAKDOWN_FIELDS = {
  input: 'inputTokens',
  cachedInput: 'cachedInputTokens',
  cacheWrite: 'cacheWriteInputTokens',
  output: 'outputTokens',
  reasoning: 'reasoningOutputTokens',
  total: 'totalTokens',
} as const satisfies Record<keyof TokenUsage, keyof TokenUsageBreakdown>;

/** Reins usage from a breakdown; with `before`, the part since then (fields known on both sides only). */
export function tokenUsage(breakdown: TokenUsageBreakdown, before?: TokenUsageBreakdown): TokenUsage {
  const out: TokenUsage = {};
  for (const [key, field] of Object.entries(BREAKDOWN_FIELDS) as [keyof TokenUsage, keyof TokenUsageBreakdown][]) {
    const now = count(breakdown[field]);
    const then = before ? count(before[field]) : 0;
    if (now !== undefined && then !== undefined) out[key] = now - then;
  }
  return out;
}

/**
 * Codex's `last` is the last sampling request, not the turn: a turn with a tool call makes two
 * requests. So the turn's usage is the thread total minus the total when the turn started, when that
 * is known (a fresh thread starts at zero); otherwise (first turn after a resume) `last`.
 * Codex reports no cost, so costUsd stays absent. Context used = tokens of the last request.
 */
export function usageOf(state: TranslateState, usage: ThreadTokenUsage): Usage {
  const turn = state.totalAtTurnStart ? tokenUsage(usage.total, state.totalAtTurnStart) : tokenUsage(usage.last);
  state.lastTotal = usage.total;
  const used = count(usage.last.totalTokens);
  const window = count(usage.modelContextWindow);
  return {
    turn,
    total: tokenUsage(usage.total),
    ...(used !== undefined ? { context: { used, ...(window !== undefined ? { window } : {}) } } : {}),
  };
}

// ---- errors and outcomes -----------------------------------------------------------------------

function errorData(error: TurnError): Record<string, unknown> {
  return {
    codexErrorInfo: error.codexErrorInfo,
    ...(error.additionalDetails ? { additionalDetails: error.additionalDetails } : {}),
  };
}

/** The HTTP status Codex forwarded in the structured error info, if any. */
function httpStatusOf(info: CodexErrorInfo | null): number | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  for (const value of Object.values(info)) {
    const status = (value as { httpStatusCode?: unknown } | null)?.httpStatusCode;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

function provider(
  kind: ProviderErrorKind,
  message: string,
  error: TurnError,
  extra: Record<string, unknown> = {},
): ErrorInfo {
  const retryable = ['rate_limited', 'overloaded', 'server_error', 'connection_failed'].includes(kind);
  return { code: 'provider_error', message, retryable, data: { kind, ...errorData(error), ...extra } };
}

/**
 * A Reins error that a Reins bridge (`reins bridge codex-app-server`) carried in additionalDetails as
 * `{"reins": {code, retryable?, data?}}`: kept whole, so Reins driving Reins loses no code.
 */
function reinsErrorIn(error: TurnError): ErrorInfo | undefined {
  if (!error.additionalDetails?.startsWith('{"reins"')) return undefined;
  try {
    const parsed = ErrorInfoSchema.safeParse({ ...JSON.parse(error.additionalDetails).reins, message: error.message });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Maps Codex's structured error (codexErrorInfo, never the message text) to a Reins error.
 * `model` names the model of the turn for unsupported_model messages.
 */
export function errorInfoOf(error: TurnError, model?: string): ErrorInfo {
  const bridged = reinsErrorIn(error);
  if (bridged) return bridged;
  const info = error.codexErrorInfo;
  const message = error.message;
  const status = httpStatusOf(info);
  if (status !== undefined) {
    const extra = { httpStatus: status };
    if (status === 401 || status === 403) {
      return { code: 'auth_required', message, data: { ...errorData(error), ...extra } };
    }
    if (status === 429) return provider('rate_limited', message, error, extra);
    if (status === 529 || status === 503) return provider('overloaded', message, error, extra);
    if (status >= 500) return provider('server_error', message, error, extra);
    if (status === 400) return provider('bad_request', message, error, extra);
  }
  if (typeof info === 'string') {
    switch (info) {
      case 'modelNotFound':
        return {
          ...unsupportedModelError(model ?? 'unknown', message).toInfo(),
          data: { model: model ?? 'unknown', ...errorData(error) },
        };
      case 'unauthorized':
        return { code: 'auth_required', message, data: errorData(error) };
      case 'rateLimitExceeded':
      case 'usageLimitExceeded':
        return provider('rate_limited', message, error);
      case 'serverOverloaded':
        return provider('overloaded', message, error);
      case 'internalServerError':
        return provider('server_error', message, error);
      case 'contextWindowExceeded':
        return provider('context_window_exceeded', message, error);
      case 'badRequest':
        return provider('bad_request', message, error);
      default:
        break;
    }
  }
  if (info !== null && typeof info === 'object') {
    if ('responseStreamDisconnected' in info || 'responseStreamConnectionFailed' in info) {
      return provider('connection_failed', message, error);
    }
    if ('httpConnectionFailed' in info) return provider('connection_failed', message, error);
  }
  return provider('unknown', message, error);
}

/** The Reins outcome of a finished Codex turn. */
export function outcomeOf(turn: Turn, model?: string): TurnOutcome {
  switch (turn.status) {
    case 'completed':
      return { status: 'completed' };
    case 'interrupted':
      return { status: 'cancelled' };
    case 'failed':
      return {
        status: 'failed',
        error: turn.error
          ? errorInfoOf(turn.error, model)
          : { code: 'provider_error', message: 'Codex reported the turn as failed without an error.' },
      };
    case 'inProgress':
      return {
        status: 'failed',
        error: { code: 'protocol_error', message: 'Codex completed a turn whose status is still inProgress.' },
      };
    default:
      return assertNever(turn.status, 'turn status');
  }
}

// ---- catalog -----------------------------------------------------------------------------------

export function modelInfoOf(model: Model): ModelInfo {
  const efforts = model.supportedReasoningEfforts
    .map((option) => option.reasoningEffort)
    .filter((effort): effort is Effort => (EFFORT_LEVELS as readonly string[]).includes(effort));
  return {
    id: model.id,
    displayName: model.displayName,
    isDefault: model.isDefault,
    ...(efforts.length > 0 ? { efforts } : {}),
  };
}
