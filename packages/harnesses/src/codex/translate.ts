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
  EFFORT_LEVELS,
  type Effort,
  type ErrorInfo,
  type EventPayload,
  type Item,
  isRecord,
  type ModelInfo,
  type PassthroughReason,
  type PlanEntry,
  type SessionStatus,
} from '@reins/core';
import { errorData, errorInfoOf } from './errors.js';
import { list, mapThreadItem, sendable, str } from './items.js';
import { KNOWN_METHODS } from './translate-methods.js';
import { usageUpdated } from './usage.js';
import type { TokenUsageBreakdown } from './wire.js';

export { errorInfoOf, outcomeOf } from './errors.js';
export { type ItemMapping, mapThreadItem, toItem } from './items.js';
export { tokenUsage, usageOf } from './usage.js';

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

/** At most this many item ids are remembered for de-duplication (the oldest are forgotten first). */
const REMEMBERED_ITEMS = 10_000;

function passthrough(frame: unknown, parentItemId?: string, reason?: PassthroughReason): Translated {
  const payload: EventPayload = reason ? { type: 'passthrough', frame, reason } : { type: 'passthrough', frame };
  return parentItemId === undefined ? { payload } : { payload, parentItemId };
}

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
  const id = idPrefix === '' ? itemId : idPrefix + itemId;
  return [withParent({ type: 'item.delta', itemId: id, kind, text }, parentItemId)];
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

/**
 * Translates one server notification other than turn/started and turn/completed (the session's). Where
 * it belongs decides first: frames without a thread id (warnings, account) and those of the session's own
 * thread are the session's; a subagent's thread (one a collab tool call spawned) keeps its items and
 * deltas, tied to that call; any other thread's frames pass through.
 */
export function translateNotification(state: TranslateState, frame: NotificationFrame): Translated[] {
  if (!isRecord(frame) || typeof frame.method !== 'string') return [passthrough(frame, undefined, 'unparsable')];
  const method = frame.method;
  const params = isRecord(frame.params) ? frame.params : undefined;
  const threadId = params ? str(params.threadId) : undefined;
  if (threadId === undefined || state.threadId === undefined || threadId === state.threadId) {
    // The status comes with every turn: straight to its case, not past every item and delta method.
    if (method === 'thread/status/changed') return translateThreadNotification(state, frame, method, params);
    return (
      itemOrDelta(state, frame, method, params, '', undefined) ??
      translateThreadNotification(state, frame, method, params)
    );
  }
  const parentItemId = state.childThreads.get(threadId);
  if (parentItemId === undefined) return [passthrough(frame)];
  // Item ids are only unique within a thread: a subagent's items get its thread id in front. Everything
  // else describes the session's own thread; a subagent's copy stays native.
  return itemOrDelta(state, frame, method, params, `${threadId}:`, parentItemId) ?? [passthrough(frame, parentItemId)];
}

/**
 * Items and deltas, the frames of every turn (no closures here: the bench's translate figure); undefined
 * for any other method.
 */
function itemOrDelta(
  state: TranslateState,
  frame: NotificationFrame,
  method: string,
  params: Record<string, unknown> | undefined,
  idPrefix: string,
  parentItemId: string | undefined,
): Translated[] | undefined {
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
      return undefined;
  }
}

const unparsableOf = (frame: unknown): Translated[] => [passthrough(frame, undefined, 'unparsable')];

/** A notice of a string message (else the frame as unparsable); `data` made sendable when given. */
function noticeOf(
  frame: unknown,
  kind: 'warning' | 'deprecation' | 'info',
  message: unknown,
  data?: unknown,
): Translated[] {
  if (typeof message !== 'string') return unparsableOf(frame);
  return [
    {
      payload:
        data !== undefined
          ? { type: 'notice', kind, message, data: sendable(data) }
          : { type: 'notice', kind, message },
    },
  ];
}

/**
 * The notifications about the session's own thread (not items or deltas). No closures and no spread
 * literals: thread/status/changed, usage and rate limits come with every turn (the bench's translate figure).
 */
function translateThreadNotification(
  state: TranslateState,
  frame: NotificationFrame,
  method: string,
  params: Record<string, unknown> | undefined,
): Translated[] {
  switch (method) {
    case 'thread/status/changed': {
      const status = sessionStatusOf(params?.status);
      if (status === 'none') return [passthrough(frame)];
      if (status === 'unknown' || status === 'unparsable') return [passthrough(frame, undefined, status)];
      return [{ payload: { type: 'session.status', status } }];
    }
    case 'thread/tokenUsage/updated':
      if (!isRecord(params?.tokenUsage)) return unparsableOf(frame);
      return [{ payload: usageUpdated(state, params.tokenUsage) }];
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
    case 'thread/started': {
      const thread = isRecord(params?.thread) ? params.thread : undefined;
      if (!thread || typeof thread.id !== 'string') return unparsableOf(frame);
      if (state.threadId !== undefined && thread.id !== state.threadId) return [passthrough(frame)];
      const payload: EventPayload & { type: 'session.updated' } = {
        type: 'session.updated',
        nativeSessionId: thread.id,
      };
      const model = str(thread.model);
      if (model) payload.model = model;
      const title = str(thread.name);
      if (title) payload.title = title;
      return [{ payload }];
    }
    case 'thread/name/updated': {
      const name = params?.threadName;
      if (name === undefined || name === null) return [passthrough(frame)];
      return typeof name === 'string' ? [{ payload: { type: 'session.updated', title: name } }] : unparsableOf(frame);
    }
    case 'turn/plan/updated':
      return planUpdated(state, frame, params);
    case 'turn/diff/updated':
      return noticeOf(frame, 'info', 'The turn diff changed.', { diff: params?.diff });
    case 'error': {
      const error = params?.error;
      if (!isRecord(error) || typeof error.message !== 'string') return unparsableOf(frame);
      if (params?.willRetry === true) {
        return [
          { payload: { type: 'notice', kind: 'retry', message: error.message, data: sendable(errorData(error)) } },
        ];
      }
      return [{ payload: errorEvent(errorInfoOf(error)) }];
    }
    case 'warning':
    case 'guardianWarning':
      return noticeOf(frame, 'warning', params?.message);
    case 'configWarning': {
      const details = str(params?.details);
      return noticeOf(frame, 'warning', params?.summary, details ? { details } : undefined);
    }
    case 'deprecationNotice':
      return noticeOf(frame, 'deprecation', params?.summary);
    case 'thread/compacted':
      return [{ payload: { type: 'notice', kind: 'compaction', message: 'Codex compacted the conversation.' } }];
    case 'model/rerouted': {
      const toModel = str(params?.toModel);
      if (toModel === undefined) return unparsableOf(frame);
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
    case 'remoteControl/status/changed':
    case 'serverRequest/resolved':
    case 'item/reasoning/summaryPartAdded':
    case 'mcpServer/startupStatus/updated':
    case 'thread/goal/cleared':
      // Declared methods that 0.169/0.171 send with every turn and Reins has no event for: answered here
      // rather than by the set below, whose lookup hashes the fresh method string of every such frame.
      return [passthrough(frame)];
    default:
      // Asked only here, not per frame: every method handled above is one the pinned Codex declares.
      return [KNOWN_METHODS.has(method) ? passthrough(frame) : passthrough(frame, undefined, 'unknown')];
  }
}

/**
 * The error event of an ErrorInfo: its keys (code, message, retryable, data) copied one by one between
 * type and fatal. A spread into a literal with keys on both sides takes V8's slow path (bench/README.md).
 */
function errorEvent(info: ErrorInfo): EventPayload {
  const payload = { type: 'error', code: info.code, message: info.message } as EventPayload & { type: 'error' };
  if ('retryable' in info) payload.retryable = info.retryable;
  if ('data' in info) payload.data = info.data;
  payload.fatal = false;
  return payload;
}

/**
 * Codex sends the whole plan on every update. Each update is one settled snapshot item with its own id
 * (plan-<turn>-<n>), so ids stay unique and the latest snapshot is the current plan. A plan outside a
 * Reins turn is a late frame of one that ended.
 */
function planUpdated(
  state: TranslateState,
  frame: NotificationFrame,
  params: Record<string, unknown> | undefined,
): Translated[] {
  const entries = list(params?.plan).map(planEntry);
  if (!Array.isArray(params?.plan) || entries.includes(undefined)) return unparsableOf(frame);
  if (entries.includes('unknown')) return [passthrough(frame, undefined, 'unknown')];
  if (state.turnId === undefined) return [passthrough(frame)];
  state.planCount++;
  const id = `plan-${state.turnId ?? str(params?.turnId) ?? 'none'}-${state.planCount}`;
  const plan = entries as PlanEntry[];
  return [
    { payload: { type: 'item.started', item: { kind: 'plan', id, status: 'running', entries: plan } } },
    { payload: { type: 'item.completed', item: { kind: 'plan', id, status: 'completed', entries: plan } } },
  ];
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
  return (
    says(fields.primary) ||
    says(fields.secondary) ||
    says(fields.credits) ||
    says(fields.individualLimit) ||
    says(fields.rateLimitReachedType) ||
    says(fields.spendControlReached)
  );
}

/** A rate-limit field that says something: not null, absent or false. */
const says = (value: unknown): boolean => value !== null && value !== undefined && value !== false;
