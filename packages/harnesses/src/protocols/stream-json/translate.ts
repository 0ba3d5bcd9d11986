// Pure translation of Claude-compatible stream-json frames (Claude Code's stdout, which the Agent SDK
// hands over 1:1 as SDKMessages) into Reins event payloads: `translateFrameInto(state, frame, sink)` puts
// what to emit into the caller's sink (sink.ts; `translateFrame` returns it as a list) and mutates only
// `state`. No process, no I/O; the Claude Code adapter owns the turn
// lifecycle and the Amp adapter can reuse this with its own options (source name, tool kinds,
// which key sources are metered).
//
// Facts the mapping rests on (Claude Code 2.1.197; 2.1.332 the same unless noted):
// - `assistant` carries ONE content block per message; all blocks of one API message share
//   `message.id`, in content order, so the k-th assistant frame of a message id is block index k,
//   the same index the `stream_event` content_block_* events use. With partial messages the
//   assistant frame for a block arrives after its deltas and before its content_block_stop.
// - Provider errors arrive as a synthetic assistant message (`model: "<synthetic>"`, top-level
//   `error`), followed by `result` with is_error.
// - `result` is exactly one per user turn (its usage and outcome: result.ts); a turn Claude Code starts
//   by itself (2.1.332, after a background task ended, tasks.ts) has its own `result`.
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what the harness sends. A frame or block whose fields lack the wire's types
// passes through with reason `unparsable` (wrong-typed counts are absent, never zero); an item started
// or completed a second time (a re-sent frame) passes through with reason `duplicate`.
import type { CompactionItem, Item, PayloadOf } from '@reins/core';
import { mapAssistantError, promptTokens, resultOutcome, resultUsage } from './result.js';
import { EmissionList, type EmissionSink } from './sink.js';
import {
  blockItemId,
  countAssistantFrame,
  type Emission,
  firstStart,
  registerMessage,
  resetTurnState,
  setBlock,
  setTool,
  type TranslationState,
} from './state.js';
import { translateStreamEvent } from './stream-events.js';
import { emitOnLane, emitPassthrough, translateTaskFrame, turnEndedForTasks } from './tasks.js';
import { planEntries, startTool, toolTitle, translateUser } from './tool-calls.js';
import { sameToolNames, toolNames } from './tool-names.js';
import { count, isObject, type JsonObject, laneOf, num, sendable, shown } from './values.js';
import type {
  WireApiRetry,
  WireAssistantMessage,
  WireCompactBoundary,
  WireContentBlock,
  WireInit,
  WirePartialMessage,
  WireResult,
  WireUserMessage,
} from './wire.js';

export { mapAssistantError, resultOutcome, resultUsage } from './result.js';
export { EmissionList, type EmissionSink } from './sink.js';
export {
  createTranslationState,
  defaultClassifyTool,
  defaultIsMeteredKeySource,
  type Emission,
  resetTurnState,
  resolveStreamJsonOptions,
  type SessionFacts,
  type StreamJsonOptions,
  TranslationState,
} from './state.js';

/** Translates one native frame into a list. Unknown frames become passthrough; nothing is dropped unseen. */
export function translateFrame(state: TranslationState, frame: unknown): Emission[] {
  const list = new EmissionList();
  translateFrameInto(state, frame, list);
  return list.emissions;
}

/** Translates one native frame into `sink`, in order (what translateFrame lists). */
export function translateFrameInto(state: TranslationState, frame: unknown, sink: EmissionSink): void {
  translateTypedFrameInto(state, frame, isObject(frame) ? frame.type : undefined, sink);
}

/**
 * translateFrameInto for a caller that has read the frame's type already (`type`: the frame's `type`
 * when it is an object, else undefined): frames come in many shapes, so each read of it is a
 * megamorphic lookup.
 */
export function translateTypedFrameInto(
  state: TranslationState,
  frame: unknown,
  type: unknown,
  sink: EmissionSink,
): void {
  if (typeof type !== 'string') {
    emitPassthrough(state, sink, frame, undefined, 'unparsable');
    return;
  }
  const object = frame as JsonObject;
  switch (type) {
    case 'system':
      translateSystem(state, object, sink);
      return;
    case 'stream_event':
      translateStreamEvent(state, object as unknown as WirePartialMessage, sink);
      return;
    case 'assistant':
      translateAssistant(state, object as unknown as WireAssistantMessage, sink);
      return;
    case 'user':
      translateUser(state, object as unknown as WireUserMessage, sink);
      return;
    case 'result':
      translateResult(state, object as unknown as WireResult, sink);
      return;
    default:
      emitPassthrough(state, sink, frame);
  }
}

function translateSystem(state: TranslationState, frame: JsonObject, sink: EmissionSink): void {
  const subtype = frame.subtype;
  switch (subtype) {
    case 'init':
      translateInit(state, frame as unknown as WireInit, sink);
      return;
    case 'compact_boundary': {
      const metadata = (frame as unknown as WireCompactBoundary).compact_metadata ?? {};
      state.compactions++;
      const id = typeof frame.uuid === 'string' ? frame.uuid : `compaction_${state.compactions}`;
      // A re-sent boundary (the same uuid) is the same compaction.
      if (!firstStart(state, id)) {
        emitPassthrough(state, sink, frame, undefined, 'duplicate');
        return;
      }
      // Key by key, not spreads of conditional literals (a slow copy on Node 20: bench/README.md).
      const item: CompactionItem = { kind: 'compaction', id, status: 'completed' };
      if (typeof metadata.trigger === 'string') item.trigger = metadata.trigger;
      if (Number.isInteger(count(metadata.pre_tokens))) item.preTokens = metadata.pre_tokens;
      if (Number.isInteger(count(metadata.post_tokens))) item.postTokens = metadata.post_tokens;
      sink.emit({ type: 'item.started', item: { ...item, status: 'running' } }, undefined, false);
      sink.emit({ type: 'item.completed', item }, undefined, false);
      return;
    }
    case 'api_retry': {
      const retry = frame as unknown as WireApiRetry;
      const status = shown(retry.error_status, 'no status');
      const cause = shown(retry.error, '');
      const delay = num(retry.retry_delay_ms);
      sink.emit(
        {
          type: 'notice',
          kind: 'retry',
          message:
            `The provider request failed (${status}${cause ? `, ${cause}` : ''}); ` +
            `retry ${shown(retry.attempt, '?')} of ${shown(retry.max_retries, '?')}` +
            (delay !== undefined ? ` in ${Math.round(delay)} ms.` : '.'),
          data: sendable({
            attempt: retry.attempt,
            maxRetries: retry.max_retries,
            retryDelayMs: delay,
            errorStatus: retry.error_status,
            error: retry.error,
          }),
        },
        undefined,
        false,
      );
      return;
    }
    default:
      if (!translateTaskFrame(state, frame, subtype, sink)) emitPassthrough(state, sink, frame);
  }
}

function translateInit(state: TranslationState, init: WireInit, sink: EmissionSink): void {
  const facts = state.facts;
  // Made on the first change only: most init frames repeat what the session already knows (keys are set
  // in the same order as before, so the payload's shape does not change).
  let update: PayloadOf<'session.updated'> | undefined;
  if (typeof init.session_id === 'string' && init.session_id !== facts.nativeSessionId) {
    update ??= { type: 'session.updated' };
    facts.nativeSessionId = update.nativeSessionId = init.session_id;
  }
  if (typeof init.model === 'string' && init.model !== facts.model) {
    update ??= { type: 'session.updated' };
    facts.model = update.model = init.model;
  }
  // Only the tool names that are strings; a list that changed in nothing else is no news.
  if (Array.isArray(init.tools) && !sameToolNames(init.tools, facts.tools)) {
    update ??= { type: 'session.updated' };
    facts.tools = update.tools = toolNames(init.tools);
  }
  // The metered check is a pure function of the source: only a source not seen before needs it.
  const newKeySource = typeof init.apiKeySource === 'string' && init.apiKeySource !== facts.apiKeySource;
  if (newKeySource) {
    update ??= { type: 'session.updated' };
    facts.apiKeySource = update.apiKeySource = init.apiKeySource;
  }
  if (typeof init.permissionMode === 'string' && init.permissionMode !== facts.mode) {
    update ??= { type: 'session.updated' };
    facts.mode = update.mode = init.permissionMode;
  }
  if (typeof init.claude_code_version === 'string') facts.harnessVersion = init.claude_code_version;
  if (update) sink.emit(update, undefined, false);
  if (newKeySource && !state.meteredNoticeSent && state.options.isMeteredKeySource(init.apiKeySource as string)) {
    state.meteredNoticeSent = true;
    sink.emit(
      {
        type: 'notice',
        kind: 'metered_key',
        message:
          `The harness is billing the API key from ${init.apiKeySource} per token, ` +
          'not a subscription; unset it to use your login instead.',
        data: { apiKeySource: init.apiKeySource },
      },
      undefined,
      false,
    );
  }
}

function blockText(content: WireContentBlock[] | string): string {
  if (typeof content === 'string') return content;
  return content
    .map((block: unknown) =>
      isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : '',
    )
    .join('');
}

function translateAssistant(state: TranslationState, frame: WireAssistantMessage, sink: EmissionSink): void {
  const lane = laneOf(frame.parent_tool_use_id);
  const message = frame.message;
  if (!isObject(message) || !Array.isArray(message.content)) {
    emitPassthrough(state, sink, frame, lane, 'unparsable');
    return;
  }
  // A synthetic message WITH a top-level error is a provider failure; without one it is the CLI
  // speaking for itself ("Not enough messages to compact.", 2.1.197) and shows as agent text.
  if (typeof frame.error === 'string') {
    const status = num((frame as unknown as JsonObject).api_error_status);
    const error = mapAssistantError(frame.error ?? 'unknown', blockText(message.content), status, state.facts.model);
    if (lane === undefined) state.turnError = error;
    // Assignments in the order `{ type, ...error, fatal }` had: a spread copy that gains keys is slow on Node 20.
    const payload = { type: 'error', code: error.code, message: error.message } as PayloadOf<'error'>;
    if (error.retryable !== undefined) payload.retryable = error.retryable;
    if (error.data !== undefined) payload.data = error.data;
    payload.fatal = false;
    emitOnLane(state, sink, payload, lane);
    return;
  }
  if (typeof message.id !== 'string') {
    emitPassthrough(state, sink, frame, lane, 'unparsable');
    return;
  }
  if (state.finishedMessages?.has(message.id)) {
    emitPassthrough(state, sink, frame, lane, 'duplicate');
    return;
  }
  if (lane === undefined) state.contextUsed = promptTokens(message.usage) ?? state.contextUsed;
  const known = registerMessage(state, message.id, lane ?? '');
  const first = countAssistantFrame(known, message.content.length);
  let malformed = false;
  // A loop, not forEach: no closure per frame (the bench's translate figure). Holes are skipped as forEach does.
  const content: unknown[] = message.content;
  for (let offset = 0; offset < content.length; offset++) {
    const raw = content[offset];
    // Only an undefined may be a hole (the `in` check is a keyed lookup, not needed for a block).
    if (raw === undefined && !(offset in content)) continue;
    const index = first + offset;
    const block = known.blocks[index];
    if (!isObject(raw)) {
      malformed = true;
      continue;
    }
    const wire = raw as WireContentBlock & JsonObject;
    const type = wire.type;
    if (type === 'text' || type === 'thinking' || type === 'redacted_thinking') {
      const text = type === 'text' ? wire.text : type === 'thinking' ? wire.thinking : '';
      const kind = type === 'text' ? 'text' : 'reasoning';
      // Text that is not a string, or a block streamed as another kind than it now claims, contradicts the wire.
      if (typeof text !== 'string' || (block !== undefined && block.kind !== kind)) {
        malformed = true;
        continue;
      }
      if (block?.completed) continue;
      // A text or reasoning block's item id is its message and index (the block's own when it streamed).
      const id = block ? block.itemId : blockItemId(known, index);
      const item: Item =
        kind === 'text'
          ? { kind: 'agent_message', id, status: 'completed', text }
          : { kind: 'reasoning', id, status: 'completed', text };
      if (!block) {
        const started: Item =
          kind === 'text'
            ? { kind: 'agent_message', id, status: 'running', text: '' }
            : { kind: 'reasoning', id, status: 'running', text: '' };
        emitOnLane(state, sink, { type: 'item.started', item: started }, lane);
      }
      setBlock(known, index, id, kind, true);
      emitOnLane(state, sink, { type: 'item.completed', item }, lane);
      continue;
    }
    if (type === 'tool_use') {
      const use = wire as { id: unknown; name: unknown; input: unknown };
      if (typeof use.id !== 'string' || typeof use.name !== 'string') {
        malformed = true;
        continue;
      }
      const kind = state.options.classifyTool(use.name);
      const existing = state.toolCalls?.get(use.id);
      // A tool_use re-sent after its call settled (its result seen) starts nothing again.
      if (!existing && !firstStart(state, use.id)) {
        emitPassthrough(state, sink, frame, lane, 'duplicate');
        continue;
      }
      if (kind === 'plan') {
        const plan = { kind: 'plan' as const, id: use.id, entries: planEntries(use.input) };
        setTool(state, use.id, plan);
        setBlock(known, index, use.id, 'plan', true);
        emitOnLane(
          state,
          sink,
          { type: 'item.started', item: { kind: 'plan', id: plan.id, entries: plan.entries, status: 'running' } },
          lane,
        );
        continue;
      }
      if (existing && existing.kind === 'tool_call') {
        // Streamed: the start went out with an empty input; the completed item carries the full one.
        existing.input = sendable(use.input);
        const title = toolTitle(kind, use.input);
        // A literal: a spread copy that gains a key is slow on Node 20 (see tool-calls.ts).
        if (title) existing.tool = { kind: existing.tool.kind, name: existing.tool.name, title };
      } else {
        const item = startTool(state, use.id, use.name, kind, use.input);
        emitOnLane(state, sink, { type: 'item.started', item }, lane);
      }
      setBlock(known, index, use.id, 'tool', true);
      continue;
    }
    emitPassthrough(state, sink, frame, lane);
  }
  if (malformed) emitPassthrough(state, sink, frame, lane, 'unparsable');
}

function translateResult(state: TranslationState, result: WireResult, sink: EmissionSink): void {
  const usage = resultUsage(state, result);
  const outcome = resultOutcome(state, result);
  if (usage) {
    // Usage's keys in the order resultUsage sets them, as `{ type, ...usage }` had them: a spread copy
    // that gains keys is slow on Node 20 (the bench's translate figure).
    const update = { type: 'usage.updated' } as PayloadOf<'usage.updated'>;
    if (usage.turn) update.turn = usage.turn;
    if (usage.total) update.total = usage.total;
    if (usage.context) update.context = usage.context;
    if (usage.costUsd) update.costUsd = usage.costUsd;
    sink.emit(update, undefined, false);
  }
  const completed: PayloadOf<'turn.completed'> = {
    type: 'turn.completed',
    outcome:
      outcome === 'completed' || outcome === 'cancelled' ? { status: outcome } : { status: 'failed', error: outcome },
  };
  if (usage) completed.usage = usage;
  // Each field read once: results come in many shapes, so each read is a megamorphic lookup.
  const structured = result.structured_output;
  if (structured !== undefined) completed.structuredOutput = sendable(structured);
  const stopReason = result.stop_reason;
  if (typeof stopReason === 'string') completed.stopReason = stopReason;
  // The turn's state is reset before its terminal goes out, as a caller of translateFrame saw it.
  turnEndedForTasks(state.taskState);
  resetTurnState(state);
  sink.emit(completed, undefined, false);
}
