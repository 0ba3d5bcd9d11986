// Pure translation of Pi `--mode rpc` events into Reins event payloads, and the turn-boundary rule.
// No process here: the session feeds parsed frames in and emits what comes out, through a payload sink
// it provides (sink.ts; translatePiFrame returns them as a list).
//
// The turn boundary (agent_end, retries, the get_state barrier) and the turn's usage: turn-end.ts. Message
// events (blocks, deltas, user messages): message-events.ts. Tool calls: tool-events.ts.
//
// Frames that carry nothing beyond what other events already say (turn_start, turn_end,
// message_update start/done/error, queue_update, message_start of an assistant) map to no event.
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what Pi sends. An event type or message_update kind newer than 0.73.1 passes
// through with reason `unknown`; one whose fields lack the types of Pi's .d.ts passes through with reason
// `unparsable`; an item started or completed a second time (a re-sent frame) passes through with reason
// `duplicate`. Message content, provider errors and stored history: messages.ts.
import { type CompactionItem, type EventPayload, isRecord } from '@reins/core';
import { onMessageEnd, onMessageStart, onMessageUpdate } from './message-events.js';
import { sendable, shown, str } from './messages.js';
import { emitItem, PayloadList, type PayloadSink, passthrough } from './sink.js';
import type { PiTranslateState } from './state.js';
import { onTool } from './tool-events.js';
import { onAgentEnd, onRetryEnd } from './turn-end.js';
import type { PiEventType } from './wire.js';

export { piMessagesToItems, piProviderError, piToolKind } from './messages.js';
export { PayloadList, type PayloadSink } from './sink.js';
export { beginPiTurn, createPiTranslateState, type PiTranslateState } from './state.js';
export { failTurn, isTurnEndPending, settleTurn, settleTurnInto } from './turn-end.js';

/** Translates one parsed stdout frame that is not a command response, as a list. */
export function translatePiFrame(state: PiTranslateState, frame: Record<string, unknown>): EventPayload[] {
  const list = new PayloadList();
  translatePiFrameInto(state, frame, list);
  return list.payloads;
}

/** Translates one parsed stdout frame that is not a command response into `sink`, in order. */
export function translatePiFrameInto(state: PiTranslateState, frame: Record<string, unknown>, sink: PayloadSink): void {
  if (!isRecord(frame) || typeof frame.type !== 'string') {
    sink.emit(passthrough(frame, 'unparsable'));
    return;
  }
  translateEvent(state, frame, sink);
}

/**
 * One event of a type Pi declares (wire.ts PI_EVENT_TYPES: every one has its case here, asserted by
 * translate.test.ts); any other type passes through as `unknown`. The switch decides that alone: a set
 * lookup first hashed the fresh type string of every frame (the bench's translate figure).
 */
function translateEvent(state: PiTranslateState, event: Record<string, unknown>, sink: PayloadSink): void {
  // Ordered by how often Pi sends them (every streamed token is a message_update): each case before
  // the match compares the fresh type string once more.
  switch (event.type as PiEventType) {
    case 'message_update':
      if (isRecord(event.assistantMessageEvent) && typeof event.assistantMessageEvent.type === 'string')
        onMessageUpdate(state, isRecord(event.message) ? event.message : {}, event.assistantMessageEvent, event, sink);
      else sink.emit(passthrough(event, 'unparsable'));
      return;
    case 'message_start':
      if (isRecord(event.message)) onMessageStart(state, event.message, event, sink);
      else sink.emit(passthrough(event, 'unparsable'));
      return;
    case 'message_end':
      if (isRecord(event.message)) onMessageEnd(state, event.message, event, sink);
      else sink.emit(passthrough(event, 'unparsable'));
      return;
    case 'turn_start':
    case 'turn_end':
    case 'queue_update':
      return;
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
      onTool(state, event, sink);
      return;
    case 'agent_start':
      state.retrying = false;
      sink.emit({ type: 'session.status', status: 'running' });
      return;
    case 'agent_end':
      onAgentEnd(state, event.messages);
      return;
    case 'compaction_start': {
      state.compactionCount++;
      const id = `pi-compaction-${state.compactionCount}`;
      state.openCompaction = id;
      const trigger = str(event.reason);
      const item: CompactionItem = { kind: 'compaction', id, status: 'running' };
      if (trigger) item.trigger = trigger;
      emitItem(state, sink, event, { type: 'item.started', item });
      return;
    }
    case 'compaction_end':
      onCompactionEnd(state, event, sink);
      return;
    case 'auto_retry_start':
      // The agent_end just seen was not the end of the turn: Pi runs the prompt again.
      state.pendingEnd = undefined;
      state.retrying = true;
      sink.emit({
        type: 'notice',
        kind: 'retry',
        message: `Pi retries after an error (attempt ${shown(event.attempt)} of ${shown(event.maxAttempts)}, in ${shown(event.delayMs)} ms): ${str(event.errorMessage) ?? 'unknown error'}`,
        data: sendable({ attempt: event.attempt, maxAttempts: event.maxAttempts, delayMs: event.delayMs }),
      });
      return;
    case 'auto_retry_end':
      onRetryEnd(state, event.success === true, event.attempt, str(event.finalError), sink);
      return;
    case 'thinking_level_changed':
      sink.emit(
        typeof event.level === 'string'
          ? { type: 'session.updated', effort: event.level }
          : passthrough(event, 'unparsable'),
      );
      return;
    case 'extension_error': {
      const path = str(event.extensionPath);
      sink.emit({
        type: 'notice',
        kind: 'warning',
        message: `A Pi extension failed${path ? ` (${path})` : ''}: ${str(event.error) ?? 'unknown error'}`,
        data: sendable(event),
      });
      return;
    }
    case 'extension_ui_request':
      sink.emit(
        typeof event.method === 'string' ? onExtensionUi(event.method, event) : passthrough(event, 'unparsable'),
      );
      return;
    default:
      // A type newer than 0.73.1.
      sink.emit(passthrough(event, 'unknown'));
  }
}

/** Dialogs block Pi until answered; the session answers them cancelled (Reins has no UI channel for them). */
export const PI_DIALOG_METHODS: ReadonlySet<string> = new Set(['select', 'confirm', 'input', 'editor']);

function onExtensionUi(method: string, frame: Record<string, unknown>): EventPayload {
  if (PI_DIALOG_METHODS.has(method)) {
    const title = typeof frame.title === 'string' ? `: ${frame.title}` : '';
    return {
      type: 'notice',
      kind: 'warning',
      message: `A Pi extension asked for input (${method}${title}); Reins answered it as cancelled.`,
      data: sendable(frame),
    };
  }
  if (method === 'notify' && typeof frame.message === 'string') {
    return { type: 'notice', kind: frame.notifyType === 'warning' ? 'warning' : 'info', message: frame.message };
  }
  return passthrough(frame);
}

function onCompactionEnd(state: PiTranslateState, event: Record<string, unknown>, sink: PayloadSink): void {
  const id = state.openCompaction ?? `pi-compaction-${++state.compactionCount}`;
  state.openCompaction = undefined;
  const result = isRecord(event.result) ? event.result : undefined;
  const status = event.aborted === true ? 'cancelled' : result ? 'completed' : 'failed';
  const trigger = str(event.reason);
  const before = result?.tokensBefore;
  // Key by key, not spreads of conditional literals (a slow copy on Node 20: bench/README.md).
  const item: CompactionItem = { kind: 'compaction', id, status };
  if (trigger) item.trigger = trigger;
  if (Number.isInteger(before) && (before as number) >= 0) item.preTokens = before as number;
  emitItem(state, sink, event, { type: 'item.completed', item });
  // An overflow compaction that succeeded re-runs the prompt: the turn goes on.
  if (event.willRetry === true) state.pendingEnd = undefined;
  const error = str(event.errorMessage);
  if (error) sink.emit({ type: 'notice', kind: 'compaction', message: error });
}
