// Codex app-server notifications -> Reins event payloads. Pure: no process, no clock, no I/O; the session
// owns the turn lifecycle (turn/started, turn/completed, queueing, structured output) and calls these
// functions for everything else. Tested on frames recorded from the real CLI (fixtures/) and fuzzed
// (src/translate.fuzz.test.ts).
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what Codex sends. A method, item type, status or patch kind this Codex version
// does not declare passes through with reason `unknown`; a frame whose fields do not have the wire's
// types passes through with reason `unparsable`; an item started or completed a second time (a re-sent
// frame) passes through with reason `duplicate`. Items, errors and outcomes: items.ts, errors.ts.
import {
  type Assert,
  EFFORT_LEVELS,
  type Effort,
  type Equals,
  type EventPayload,
  type Item,
  isRecord,
  type ModelInfo,
  type PassthroughReason,
  type PlanEntry,
  type SessionStatus,
  type TokenUsage,
  type Usage,
} from '@reins/core';
import { errorData, errorInfoOf } from './errors.js';
import { list, mapThreadItem, sendable, str } from './items.js';
import type { ServerNotification, TokenUsageBreakdown } from './wire.js';

export { errorInfoOf, outcomeOf } from './errors.js';
export { type ItemMapping, mapThreadItem, toItem } from './items.js';

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
  /**
   * Items (thread-prefixed ids) already started or completed, with the Reins turn they started in, so a
   * re-sent or late frame is not a second event. Optional for states made before it existed.
   */
  items?: Map<string, { phase: 'started' | 'completed'; turn: string | undefined; kind: Item['kind'] }>;
}

export function createTranslateState(threadId?: string): TranslateState {
  return {
    threadId,
    childThreads: new Map(),
    totalAtTurnStart: undefined,
    lastTotal: undefined,
    turnId: undefined,
    planCount: 0,
    items: new Map(),
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

/**
 * Every server notification method of the pinned Codex (wire/generated/ServerNotification.ts): a method
 * not in it is one a newer Codex sends. The type check below fails when a regenerated wire adds one.
 */
const METHODS = [
  'error',
  'thread/started',
  'thread/status/changed',
  'thread/readState/changed',
  'thread/archived',
  'thread/deleted',
  'thread/unarchived',
  'thread/closed',
  'thread/reverted',
  'skills/changed',
  'thread/name/updated',
  'thread/section/changed',
  'thread/attachment/updated',
  'thread/goal/updated',
  'thread/prediction/updated',
  'thread/goal/cleared',
  'thread/queue/changed',
  'project/changed',
  'thread/project/updated',
  'thread/environment/connected',
  'thread/environment/disconnected',
  'thread/settings/updated',
  'thread/tokenUsage/updated',
  'turn/started',
  'hook/started',
  'turn/completed',
  'hook/completed',
  'turn/diff/updated',
  'turn/plan/updated',
  'item/started',
  'item/autoApprovalReview/started',
  'item/autoApprovalReview/completed',
  'autoApprovalReview/strictReviewRequired',
  'item/completed',
  'rawResponseItem/completed',
  'rawResponse/completed',
  'item/agentMessage/delta',
  'item/plan/delta',
  'command/exec/outputDelta',
  'process/outputDelta',
  'thread/search/partial',
  'process/exited',
  'item/commandExecution/outputDelta',
  'item/commandExecution/terminalInteraction',
  'item/fileChange/outputDelta',
  'item/fileChange/patchUpdated',
  'serverRequest/resolved',
  'item/mcpToolCall/progress',
  'mcpServer/oauthLogin/completed',
  'mcpServer/startupStatus/updated',
  'mcpServer/event/stream/notification',
  'account/updated',
  'account/gatewayOAuth/changed',
  'account/rateLimits/updated',
  'app/list/updated',
  'remoteControl/status/changed',
  'externalAgentConfig/import/progress',
  'externalAgentConfig/import/completed',
  'fs/changed',
  'item/reasoning/summaryTextDelta',
  'item/reasoning/summaryPartAdded',
  'item/reasoning/textDelta',
  'thread/compacted',
  'model/rerouted',
  'model/verification',
  'modelProvider/authRecoveryStarted',
  'modelProvider/authRecoveryCompleted',
  'turn/moderationMetadata',
  'model/safetyBuffering/updated',
  'warning',
  'guardianWarning',
  'deprecationNotice',
  'configWarning',
  'fuzzyFileSearch/sessionUpdated',
  'fuzzyFileSearch/sessionCompleted',
  'thread/realtime/started',
  'thread/realtime/itemAdded',
  'thread/realtime/item/started',
  'thread/realtime/item/transcript/delta',
  'thread/realtime/item/completed',
  'thread/realtime/transcript/delta',
  'thread/realtime/transcript/done',
  'thread/realtime/outputAudio/delta',
  'thread/realtime/sdp',
  'thread/realtime/error',
  'thread/realtime/closed',
  'windows/worldWritableWarning',
  'windowsSandbox/setupCompleted',
  'account/login/completed',
] as const satisfies readonly ServerNotification['method'][];
type _AllMethodsKnown = Assert<Equals<(typeof METHODS)[number], ServerNotification['method']>>;
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS);

/** At most this many item ids are remembered for de-duplication (the oldest are forgotten first). */
const REMEMBERED_ITEMS = 10_000;

function passthrough(frame: unknown, parentItemId?: string, reason?: PassthroughReason): Translated {
  const payload: EventPayload = reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame };
  return parentItemId === undefined ? { payload } : { payload, parentItemId };
}

function threadIdOf(params: unknown): string | undefined {
  return isRecord(params) ? str(params.threadId) : undefined;
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
  if (threadId === undefined || state.threadId === undefined || threadId === state.threadId) return MAIN_SCOPE;
  const parentItemId = state.childThreads.get(threadId);
  return parentItemId === undefined ? OTHER_SCOPE : { kind: 'child', parentItemId, threadId };
}

// Shared, so that the common scopes cost no allocation per frame (the bench's translate figure).
const MAIN_SCOPE = { kind: 'main' } as const;
const OTHER_SCOPE = { kind: 'other' } as const;

function withParent(payload: EventPayload, parentItemId: string | undefined): Translated {
  return parentItemId === undefined ? { payload } : { payload, parentItemId };
}

/** A delta of the item named in params.itemId (thread-prefixed), or the frame as unparsable. */
function deltaOf(
  frame: NotificationFrame,
  params: Record<string, unknown> | undefined,
  idPrefix: string,
  parentItemId: string | undefined,
  kind: 'text' | 'reasoning' | 'tool_output',
  text: unknown,
): Translated[] {
  const itemId = str(params?.itemId);
  if (itemId === undefined || typeof text !== 'string') return [passthrough(frame, parentItemId, 'unparsable')];
  return [withParent({ type: 'item.delta', itemId: idPrefix + itemId, kind, text }, parentItemId)];
}

/**
 * Whether an item event may be emitted: `ok`, or why it passes through instead. A start or completion
 * seen before is a re-sent frame (`duplicate`); so is a completion that arrives after the turn the item
 * started in ended (the stream closed the item then). An item event outside any Reins turn is a late frame
 * of a turn that ended: it passes through plainly. A completion of another kind than the start contradicts
 * it (`unparsable`).
 */
function admit(
  state: TranslateState,
  item: Item,
  phase: 'started' | 'completed',
): 'ok' | PassthroughReason | 'outside' {
  state.items ??= new Map();
  const seen = state.items.get(item.id);
  if (phase === 'started') {
    if (seen) return 'duplicate';
    if (state.turnId === undefined) return 'outside';
  } else {
    if (seen?.phase === 'completed' || (seen && seen.turn !== state.turnId)) return 'duplicate';
    if (!seen && state.turnId === undefined) return 'outside';
    if (seen && seen.kind !== item.kind) return 'unparsable';
  }
  state.items.delete(item.id);
  state.items.set(item.id, { phase, turn: state.turnId, kind: item.kind });
  if (state.items.size > REMEMBERED_ITEMS) {
    const oldest = state.items.keys().next().value;
    if (oldest !== undefined) state.items.delete(oldest);
  }
  return 'ok';
}

/** Translates one server notification other than turn/started and turn/completed (the session's). */
export function translateNotification(state: TranslateState, frame: NotificationFrame): Translated[] {
  if (!isRecord(frame) || typeof frame.method !== 'string') return [passthrough(frame, undefined, 'unparsable')];
  const scope = scopeOf(state, frame.params);
  if (scope.kind === 'other') return [passthrough(frame)];
  const parentItemId = scope.kind === 'child' ? scope.parentItemId : undefined;
  // Item ids are only unique within a thread: a subagent's items get its thread id in front.
  const idPrefix = scope.kind === 'child' ? `${scope.threadId}:` : '';
  const method = frame.method;
  const params = isRecord(frame.params) ? frame.params : undefined;

  // Items and deltas, the frames of every turn: no closures here (the bench's translate figure).
  switch (method) {
    case 'item/started':
    case 'item/completed': {
      const item = params?.item;
      const mapped = mapThreadItem(item, idPrefix);
      if (!('item' in mapped)) {
        return [passthrough(frame, parentItemId, mapped.none === 'none' ? undefined : mapped.none)];
      }
      const phase = method === 'item/started' ? 'started' : 'completed';
      const admitted = admit(state, mapped.item, phase);
      if (admitted !== 'ok') return [passthrough(frame, parentItemId, admitted === 'outside' ? undefined : admitted)];
      if (isRecord(item) && item.type === 'collabAgentToolCall') {
        for (const receiver of list(item.receiverThreadIds)) {
          if (typeof receiver === 'string') state.childThreads.set(receiver, mapped.item.id);
        }
      }
      return [
        withParent({ type: phase === 'started' ? 'item.started' : 'item.completed', item: mapped.item }, parentItemId),
      ];
    }
    case 'item/agentMessage/delta':
    case 'item/plan/delta':
      return deltaOf(frame, params, idPrefix, parentItemId, 'text', params?.delta);
    case 'item/reasoning/summaryTextDelta':
    case 'item/reasoning/textDelta':
      return deltaOf(frame, params, idPrefix, parentItemId, 'reasoning', params?.delta);
    case 'item/commandExecution/outputDelta':
    case 'item/fileChange/outputDelta':
      return deltaOf(frame, params, idPrefix, parentItemId, 'tool_output', params?.delta);
    case 'item/mcpToolCall/progress':
      return deltaOf(frame, params, idPrefix, parentItemId, 'tool_output', params?.message);
    default:
      break;
  }
  // Everything below describes the session's own thread; a subagent's copy stays native.
  if (scope.kind === 'child') return [passthrough(frame, parentItemId)];
  return translateThreadNotification(state, frame, method, params);
}

/** The notifications about the session's own thread (not items or deltas). */
function translateThreadNotification(
  state: TranslateState,
  frame: NotificationFrame,
  method: string,
  params: Record<string, unknown> | undefined,
): Translated[] {
  const unparsable = () => [passthrough(frame, undefined, 'unparsable')];
  const notice = (kind: 'warning' | 'deprecation' | 'info', message: unknown, data?: unknown): Translated[] =>
    typeof message === 'string'
      ? [{ payload: { type: 'notice', kind, message, ...(data !== undefined ? { data: sendable(data) } : {}) } }]
      : unparsable();

  switch (method) {
    case 'thread/started': {
      const thread = isRecord(params?.thread) ? params.thread : undefined;
      if (!thread || typeof thread.id !== 'string') return unparsable();
      if (state.threadId !== undefined && thread.id !== state.threadId) return [passthrough(frame)];
      const model = str(thread.model);
      const title = str(thread.name);
      return [
        {
          payload: {
            type: 'session.updated',
            nativeSessionId: thread.id,
            ...(model ? { model } : {}),
            ...(title ? { title } : {}),
          },
        },
      ];
    }
    case 'thread/name/updated': {
      const name = params?.threadName;
      if (name === undefined || name === null) return [passthrough(frame)];
      return typeof name === 'string' ? [{ payload: { type: 'session.updated', title: name } }] : unparsable();
    }
    case 'thread/status/changed': {
      const status = sessionStatusOf(params?.status);
      if (status === 'none') return [passthrough(frame)];
      if (status === 'unknown' || status === 'unparsable') return [passthrough(frame, undefined, status)];
      return [{ payload: { type: 'session.status', status } }];
    }
    case 'thread/tokenUsage/updated':
      if (!isRecord(params?.tokenUsage)) return unparsable();
      return [{ payload: { type: 'usage.updated', ...usageOf(state, params.tokenUsage) } }];
    case 'turn/plan/updated': {
      const entries = list(params?.plan).map(planEntry);
      if (!Array.isArray(params?.plan) || entries.includes(undefined)) return unparsable();
      if (entries.includes('unknown')) return [passthrough(frame, undefined, 'unknown')];
      // Codex sends the whole plan on every update. Each update is one settled snapshot item with its own
      // id (plan-<turn>-<n>), so ids stay unique and the latest snapshot is the current plan. A plan
      // outside a Reins turn is a late frame of one that ended.
      if (state.turnId === undefined) return [passthrough(frame)];
      state.planCount++;
      const id = `plan-${state.turnId ?? str(params?.turnId) ?? 'none'}-${state.planCount}`;
      const plan = entries as PlanEntry[];
      return [
        { payload: { type: 'item.started', item: { kind: 'plan', id, status: 'running', entries: plan } } },
        { payload: { type: 'item.completed', item: { kind: 'plan', id, status: 'completed', entries: plan } } },
      ];
    }
    case 'turn/diff/updated':
      return notice('info', 'The turn diff changed.', { diff: params?.diff });
    case 'error': {
      const error = params?.error;
      if (!isRecord(error) || typeof error.message !== 'string') return unparsable();
      if (params?.willRetry === true) {
        return [
          { payload: { type: 'notice', kind: 'retry', message: error.message, data: sendable(errorData(error)) } },
        ];
      }
      return [{ payload: { type: 'error', ...errorInfoOf(error), fatal: false } }];
    }
    case 'warning':
    case 'guardianWarning':
      return notice('warning', params?.message);
    case 'configWarning': {
      const details = str(params?.details);
      return notice('warning', params?.summary, details ? { details } : undefined);
    }
    case 'deprecationNotice':
      return notice('deprecation', params?.summary);
    case 'thread/compacted':
      return [{ payload: { type: 'notice', kind: 'compaction', message: 'Codex compacted the conversation.' } }];
    case 'model/rerouted': {
      const toModel = str(params?.toModel);
      if (toModel === undefined) return unparsable();
      const fromModel = str(params?.fromModel) ?? 'another model';
      return [
        { payload: { type: 'session.updated', model: toModel } },
        {
          payload: {
            type: 'notice',
            kind: 'info',
            message: `Codex rerouted the turn from ${fromModel} to ${toModel}.`,
            data: sendable({ fromModel: params?.fromModel, toModel, reason: params?.reason }),
          },
        },
      ];
    }
    case 'account/rateLimits/updated':
      // 0.169/0.171 send this after every turn; against a provider with no limits every window is null.
      // Only a snapshot that says something about a limit is a notice (else it was noise in every turn).
      if (!reportsALimit(params?.rateLimits)) return [{ payload: { type: 'passthrough', frame } }];
      return [
        {
          payload: {
            type: 'notice',
            kind: 'rate_limit',
            message: 'Codex reported rate limits.',
            data: sendable(params?.rateLimits),
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
            message: method === 'hook/started' ? 'A hook started.' : 'A hook completed.',
            data: sendable(frame.params),
          },
        },
      ];
    default:
      // Asked only here, not per frame: every method handled above is one the pinned Codex declares.
      return [KNOWN_METHODS.has(method) ? passthrough(frame) : passthrough(frame, undefined, 'unknown')];
  }
}

/** ThreadStatus -> session status; `none` for the statuses with no Reins status (notLoaded, systemError). */
function sessionStatusOf(status: unknown): SessionStatus | 'none' | 'unknown' | 'unparsable' {
  if (!isRecord(status) || typeof status.type !== 'string') return 'unparsable';
  switch (status.type) {
    case 'idle':
      return 'idle';
    case 'active':
      if (!Array.isArray(status.activeFlags)) return 'unparsable';
      return status.activeFlags.length > 0 ? 'requires_action' : 'running';
    case 'notLoaded':
    case 'systemError':
      return 'none';
    default:
      return 'unknown';
  }
}

/** TurnPlanStep -> plan entry; `unknown` for a status 0.169.0 does not declare (pending, inProgress, completed). */
function planEntry(step: unknown): PlanEntry | 'unknown' | undefined {
  if (!isRecord(step) || typeof step.step !== 'string') return undefined;
  switch (step.status) {
    case 'pending':
      return { text: step.step, status: 'pending' };
    case 'inProgress':
      return { text: step.step, status: 'in_progress' };
    case 'completed':
      return { text: step.step, status: 'completed' };
    default:
      return 'unknown';
  }
}

// ---- usage -------------------------------------------------------------------------------------

/** A count Codex reported; anything else (absent, not a number, negative) is absent, never zero. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

const BREAKDOWN_FIELDS = {
  input: 'inputTokens',
  cachedInput: 'cachedInputTokens',
  cacheWrite: 'cacheWriteInputTokens',
  output: 'outputTokens',
  reasoning: 'reasoningOutputTokens',
  total: 'totalTokens',
} as const satisfies Record<keyof TokenUsage, keyof TokenUsageBreakdown>;
/** Its entries, made once rather than per usage frame. */
const BREAKDOWN_ENTRIES = Object.entries(BREAKDOWN_FIELDS) as [keyof TokenUsage, keyof TokenUsageBreakdown][];

/**
 * Reins usage from a breakdown; with `before`, the part since then (fields known on both sides only; a
 * count that went down, as frames out of order would show, is not a usage and stays absent).
 */
export function tokenUsage(breakdown: unknown, before?: unknown): TokenUsage {
  const now = isRecord(breakdown) ? breakdown : {};
  const then = isRecord(before) ? before : undefined;
  const out: TokenUsage = {};
  for (const [key, field] of BREAKDOWN_ENTRIES) {
    const value = count(now[field]);
    const start = then ? count(then[field]) : 0;
    if (value !== undefined && start !== undefined && value >= start) out[key] = value - start;
  }
  return out;
}

/**
 * Codex's `last` is the last sampling request, not the turn: a turn with a tool call makes two
 * requests. So the turn's usage is the thread total minus the total when the turn started, when that
 * is known (a fresh thread starts at zero); otherwise (first turn after a resume) `last`.
 * Codex reports no cost, so costUsd stays absent. Context used = tokens of the last request.
 */
export function usageOf(state: TranslateState, usage: unknown): Usage {
  const record = isRecord(usage) ? usage : {};
  const total = isRecord(record.total) ? record.total : undefined;
  const last = isRecord(record.last) ? record.last : undefined;
  const turn = state.totalAtTurnStart ? tokenUsage(total, state.totalAtTurnStart) : tokenUsage(last);
  if (total) state.lastTotal = total as unknown as TokenUsageBreakdown;
  const used = count(last?.totalTokens);
  const window = count(record.modelContextWindow);
  return {
    turn,
    total: tokenUsage(total),
    ...(used !== undefined ? { context: { used, ...(window !== undefined ? { window } : {}) } } : {}),
  };
}

// ---- catalog -----------------------------------------------------------------------------------

export function modelInfoOf(model: unknown): ModelInfo {
  const record = isRecord(model) ? model : {};
  const efforts = list(record.supportedReasoningEfforts)
    .map((option) => (isRecord(option) ? option.reasoningEffort : undefined))
    .filter((effort): effort is Effort => (EFFORT_LEVELS as readonly unknown[]).includes(effort));
  const id = str(record.id) ?? 'unknown';
  // model/list names the effort Codex uses when none is given (defaultReasoningEffort, 0.171.0).
  const defaultEffort = (EFFORT_LEVELS as readonly unknown[]).includes(record.defaultReasoningEffort)
    ? (record.defaultReasoningEffort as Effort)
    : undefined;
  return {
    id,
    displayName: str(record.displayName) ?? id,
    isDefault: record.isDefault === true,
    ...(efforts.length > 0 ? { efforts } : {}),
    ...(defaultEffort !== undefined ? { defaultEffort } : {}),
  };
}

/** Whether a rate-limit snapshot carries any limit at all (a window, credits, a reached limit). */
function reportsALimit(snapshot: unknown): boolean {
  if (typeof snapshot !== 'object' || snapshot === null) return false;
  const fields = snapshot as Record<string, unknown>;
  return ['primary', 'secondary', 'credits', 'individualLimit', 'rateLimitReachedType', 'spendControlReached'].some(
    (key) => fields[key] !== null && fields[key] !== undefined && fields[key] !== false,
  );
}
