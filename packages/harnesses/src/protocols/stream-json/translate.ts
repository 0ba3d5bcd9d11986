// Pure translation of Claude-compatible stream-json frames (Claude Code's stdout, which the Agent SDK
// hands over 1:1 as SDKMessages) into Reins event payloads: `translateFrame(state, frame)` returns
// what to emit and mutates only `state`. No process, no I/O; the Claude Code adapter owns the turn
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
import type { ErrorInfo, EventPayload, Item, PlanEntry, ToolCallItem, ToolKind } from '@reins/core';
import { mapAssistantError, promptTokens, resultOutcome, resultUsage } from './result.js';
import {
  createTaskState,
  inBackgroundLanes,
  retainBackgroundLanes,
  type TaskState,
  translateTaskFrame,
  turnEndedForTasks,
} from './tasks.js';
import { planEntries, startTool, toolTitle, translateUser } from './tool-calls.js';
import { count, isObject, type JsonObject, laneOf, num, passthrough, sendable, shown, withLane } from './values.js';
import type {
  WireApiRetry,
  WireAssistantMessage,
  WireCompactBoundary,
  WireContentBlock,
  WireInit,
  WirePartialMessage,
  WireResult,
  WireStreamEvent,
  WireUserMessage,
} from './wire.js';

export { mapAssistantError, resultOutcome, resultUsage } from './result.js';

export interface StreamJsonOptions {
  /** `native.source` of the events: 'claude.stream-json', 'amp.stream-json'. */
  source: string;
  /** Tool name -> tool kind; default: Claude Code's tool names. */
  classifyTool?: (name: string) => ToolKind | 'plan';
  /** Whether an `apiKeySource` bills a metered API key (default: Claude Code's names). */
  isMeteredKeySource?: (apiKeySource: string) => boolean;
  /**
   * Whether a command's plain (non-error) result means exit code 0 (default true: Claude Code 2.1.197
   * reports a non-zero exit as an "Exit code N" error result). Without it only such an error result
   * carries an exit code.
   */
  plainResultExitsZero?: boolean;
}

/** One thing to emit: the payload plus the subagent lane it belongs to. */
export interface Emission {
  payload: EventPayload;
  parentItemId?: string;
  /** Background work whose launching turn has ended (tasks.ts): emitted outside any turn. */
  background?: boolean;
}

interface BlockState {
  itemId: string;
  kind: 'text' | 'reasoning' | 'tool' | 'plan';
  completed: boolean;
}

export interface SessionFacts {
  nativeSessionId?: string;
  model?: string;
  tools?: string[];
  apiKeySource?: string;
  mode?: string;
  harnessVersion?: string;
}

export interface TranslationState {
  readonly options: Required<StreamJsonOptions>;
  /** What the harness last reported about the session (init). */
  facts: SessionFacts;
  meteredNoticeSent: boolean;
  /** Current API message id per lane ('' = the main thread, else parent_tool_use_id). */
  currentMessage: Map<string, string>;
  /** `${messageId}:${index}` -> the item made from that block. */
  blocks: Map<string, BlockState>;
  /** Assistant frames seen per message id (= next block index). */
  assistantFrames: Map<string, number>;
  /** Tool calls (and TodoWrite plans) of this turn by tool_use id. */
  tools: Map<string, ToolCallItem | { kind: 'plan'; id: string; entries: PlanEntry[] }>;
  /** Tool use ids the client (or a deadline) refused: their results settle as `declined`. */
  declined: Set<string>;
  /** A provider error reported by a synthetic assistant message in this turn. */
  turnError: ErrorInfo | undefined;
  /** Set by the adapter when it asked the harness to stop the running turn. */
  interruptRequested: boolean;
  /** Prompt size of the last main-thread API call (input + cache), the context in use. */
  contextUsed: number | undefined;
  compactions: number;
  /** Tasks that run past their turn (tasks.ts). */
  tasks: TaskState;
  /** API message id -> its lane ('' = the main thread), so a turn's reset keeps background lanes. */
  messageLanes: Map<string, string>;
  /** Tool use ids and compaction uuids ever started (bounded), so a re-sent frame does not start its item again. */
  startedTools?: Set<string>;
  /** API message ids of turns that ended (bounded): a frame of one now is re-sent or stale, not news. */
  finishedMessages?: Set<string>;
}

export function defaultClassifyTool(name: string): ToolKind | 'plan' {
  if (name.startsWith('mcp__')) return 'mcp';
  switch (name) {
    case 'Bash':
      return 'command';
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return 'file_change';
    case 'Task':
    case 'Agent':
      return 'subagent';
    case 'WebSearch':
    case 'WebFetch':
      return 'web_search';
    case 'TodoWrite':
      return 'plan';
    default:
      return 'other';
  }
}

/** API keys bill per token; "none" (subscription login / OAuth) does not. */
export function defaultIsMeteredKeySource(source: string): boolean {
  return /api[_-]?key/i.test(source);
}

export function createTranslationState(options: StreamJsonOptions): TranslationState {
  return {
    options: {
      source: options.source,
      classifyTool: options.classifyTool ?? defaultClassifyTool,
      isMeteredKeySource: options.isMeteredKeySource ?? defaultIsMeteredKeySource,
      plainResultExitsZero: options.plainResultExitsZero ?? true,
    },
    facts: {},
    meteredNoticeSent: false,
    currentMessage: new Map(),
    blocks: new Map(),
    assistantFrames: new Map(),
    tools: new Map(),
    declined: new Set(),
    turnError: undefined,
    interruptRequested: false,
    contextUsed: undefined,
    compactions: 0,
    tasks: createTaskState(),
    messageLanes: new Map(),
    startedTools: new Set(),
    finishedMessages: new Set(),
  };
}

/** Forget per-turn bookkeeping (call after a turn's terminal). */
export function resetTurnState(state: TranslationState): void {
  if (state.tasks.background.size === 0) {
    // The common case, without the sets and lane checks below: no background work, so every message
    // of the turn is finished (in the same order) and every lane, block and tool call is forgotten.
    for (const id of state.assistantFrames.keys()) remember(state, 'finishedMessages', id);
    for (const id of state.messageLanes.keys())
      if (!state.assistantFrames.has(id)) remember(state, 'finishedMessages', id);
    // Only what holds something: clear() allocates a fresh table even for an empty Map.
    if (state.currentMessage.size > 0) state.currentMessage.clear();
    if (state.messageLanes.size > 0) state.messageLanes.clear();
    if (state.blocks.size > 0) state.blocks.clear();
    if (state.assistantFrames.size > 0) state.assistantFrames.clear();
    if (state.tools.size > 0) state.tools.clear();
  } else {
    // Background work outlives the turn: its lanes stay (tasks.ts), everything else is forgotten, and its
    // messages are remembered as finished.
    const messages = new Set([...state.assistantFrames.keys(), ...state.messageLanes.keys()]);
    retainBackgroundLanes(state);
    for (const id of messages) if (!state.messageLanes.has(id)) remember(state, 'finishedMessages', id);
  }
  if (state.declined.size > 0) state.declined.clear();
  state.turnError = undefined;
  state.interruptRequested = false;
}

/** At most this many ids are remembered for de-duplication. */
const REMEMBERED_IDS = 10_000;

/** Adds an id to one of the bounded remembered sets (the oldest is forgotten first). */
function remember(state: TranslationState, set: 'startedTools' | 'finishedMessages', id: string): void {
  const ids = state[set] ?? new Set<string>();
  state[set] = ids;
  ids.add(id);
  if (ids.size > REMEMBERED_IDS) {
    const oldest = ids.values().next().value;
    if (oldest !== undefined) ids.delete(oldest);
  }
}

/** Records a tool use id as started; false when it was started before (a re-sent frame). */
function firstStart(state: TranslationState, id: string): boolean {
  if (state.startedTools?.has(id)) return false;
  remember(state, 'startedTools', id);
  return true;
}

/** Translates one native frame. Unknown frames become passthrough; nothing is dropped unseen. */
export function translateFrame(state: TranslationState, frame: unknown): Emission[] {
  return inBackgroundLanes(state.tasks, translateNative(state, frame));
}

function translateNative(state: TranslationState, frame: unknown): Emission[] {
  if (!isObject(frame) || typeof frame.type !== 'string') return passthrough(frame, undefined, 'unparsable');
  switch (frame.type) {
    case 'system':
      return translateSystem(state, frame);
    case 'stream_event':
      return translateStreamEvent(state, frame as unknown as WirePartialMessage);
    case 'assistant':
      return translateAssistant(state, frame as unknown as WireAssistantMessage);
    case 'user':
      return translateUser(state, frame as unknown as WireUserMessage);
    case 'result':
      return translateResult(state, frame as unknown as WireResult);
    default:
      return passthrough(frame);
  }
}

function translateSystem(state: TranslationState, frame: JsonObject): Emission[] {
  switch (frame.subtype) {
    case 'init':
      return translateInit(state, frame as unknown as WireInit);
    case 'compact_boundary': {
      const metadata = (frame as unknown as WireCompactBoundary).compact_metadata ?? {};
      state.compactions++;
      const id = typeof frame.uuid === 'string' ? frame.uuid : `compaction_${state.compactions}`;
      // A re-sent boundary (the same uuid) is the same compaction.
      if (!firstStart(state, id)) return passthrough(frame, undefined, 'duplicate');
      const item: Item = {
        kind: 'compaction',
        id,
        status: 'completed',
        ...(typeof metadata.trigger === 'string' ? { trigger: metadata.trigger } : {}),
        ...(Number.isInteger(count(metadata.pre_tokens)) ? { preTokens: metadata.pre_tokens } : {}),
        ...(Number.isInteger(count(metadata.post_tokens)) ? { postTokens: metadata.post_tokens } : {}),
      };
      return [
        { payload: { type: 'item.started', item: { ...item, status: 'running' } } },
        { payload: { type: 'item.completed', item } },
      ];
    }
    case 'api_retry': {
      const retry = frame as unknown as WireApiRetry;
      const status = shown(retry.error_status, 'no status');
      const cause = shown(retry.error, '');
      const delay = num(retry.retry_delay_ms);
      return [
        {
          payload: {
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
        },
      ];
    }
    default:
      return translateTaskFrame(state, frame) ?? passthrough(frame);
  }
}

function translateInit(state: TranslationState, init: WireInit): Emission[] {
  const out: Emission[] = [];
  const facts = state.facts;
  const update: EventPayload & { type: 'session.updated' } = { type: 'session.updated' };
  let changed = false;
  if (typeof init.session_id === 'string' && init.session_id !== facts.nativeSessionId) {
    facts.nativeSessionId = update.nativeSessionId = init.session_id;
    changed = true;
  }
  if (typeof init.model === 'string' && init.model !== facts.model) {
    facts.model = update.model = init.model;
    changed = true;
  }
  // Only the tool names that are strings; a list that changed in nothing else is no news.
  if (Array.isArray(init.tools) && !sameToolNames(init.tools, facts.tools)) {
    facts.tools = update.tools = init.tools.filter((tool): tool is string => typeof tool === 'string');
    changed = true;
  }
  if (typeof init.apiKeySource === 'string' && init.apiKeySource !== facts.apiKeySource) {
    facts.apiKeySource = update.apiKeySource = init.apiKeySource;
    changed = true;
  }
  if (typeof init.permissionMode === 'string' && init.permissionMode !== facts.mode) {
    facts.mode = update.mode = init.permissionMode;
    changed = true;
  }
  if (typeof init.claude_code_version === 'string') facts.harnessVersion = init.claude_code_version;
  if (changed) out.push({ payload: update });
  if (
    typeof init.apiKeySource === 'string' &&
    !state.meteredNoticeSent &&
    state.options.isMeteredKeySource(init.apiKeySource)
  ) {
    state.meteredNoticeSent = true;
    out.push({
      payload: {
        type: 'notice',
        kind: 'metered_key',
        message:
          `The harness is billing the API key from ${init.apiKeySource} per token, ` +
          'not a subscription; unset it to use your login instead.',
        data: { apiKeySource: init.apiKeySource },
      },
    });
  }
  return out;
}

/**
 * Whether the string names in `sent` are `known`, compared as the lists joined by newlines (what this
 * used to compare: a name holding a newline may equal two names), without building either string per
 * init frame (the bench's translate figure).
 */
function sameToolNames(sent: unknown[], known: string[] | undefined): boolean {
  if (known === undefined) return false;
  let at = 0;
  for (const tool of sent) {
    if (typeof tool !== 'string') continue;
    if (at >= known.length || tool !== known[at] || tool.includes('\n')) return slowSameToolNames(sent, known);
    at++;
  }
  return at === known.length || slowSameToolNames(sent, known);
}

function slowSameToolNames(sent: unknown[], known: string[]): boolean {
  return sent.filter((tool) => typeof tool === 'string').join('\n') === known.join('\n');
}

// The last block key made: a block's deltas come one after another, and a Map hashes a string object
// once, so handing out the same string again spares a concatenation and a hash per delta (the bench's
// translate figure). A memo of a pure function: it holds no session's state.
let lastKeyMessage: string | undefined;
let lastKeyIndex = Number.NaN;
let lastKey = '';

/** The `blocks` key of a content block: `${messageId}:${index}`. */
function blockKey(messageId: string, index: number): string {
  if (index !== lastKeyIndex || messageId !== lastKeyMessage) {
    lastKeyMessage = messageId;
    lastKeyIndex = index;
    lastKey = `${messageId}:${index}`;
  }
  return lastKey;
}

function translateStreamEvent(state: TranslationState, frame: WirePartialMessage): Emission[] {
  const lane = laneOf(frame);
  const laneKey = lane ?? '';
  const event = frame.event as WireStreamEvent;
  if (!isObject(event)) return passthrough(frame, lane);
  switch (event.type) {
    case 'message_start': {
      if (!isObject(event.message) || typeof event.message.id !== 'string')
        return passthrough(frame, lane, 'unparsable');
      if (state.finishedMessages?.has(event.message.id)) return passthrough(frame, lane, 'duplicate');
      state.currentMessage.set(laneKey, event.message.id);
      state.messageLanes.set(event.message.id, laneKey);
      if (lane === undefined) state.contextUsed = promptTokens(event.message.usage) ?? state.contextUsed;
      return [];
    }
    case 'content_block_start': {
      const messageId = state.currentMessage.get(laneKey);
      if (messageId === undefined) return passthrough(frame, lane);
      const block = event.content_block;
      if (!isObject(block) || !Number.isInteger(event.index)) return passthrough(frame, lane, 'unparsable');
      const key = blockKey(messageId, event.index as number);
      // A re-sent block start: the block is already open (or done).
      if (state.blocks.has(key)) return passthrough(frame, lane, 'duplicate');
      if (block.type === 'text' || block.type === 'thinking') {
        const kind = block.type === 'text' ? 'text' : 'reasoning';
        state.blocks.set(key, { itemId: key, kind, completed: false });
        const item: Item =
          kind === 'text'
            ? { kind: 'agent_message', id: key, status: 'running', text: '' }
            : { kind: 'reasoning', id: key, status: 'running', text: '' };
        return [withLane({ type: 'item.started', item }, lane)];
      }
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        const kind = state.options.classifyTool(block.name);
        state.blocks.set(key, { itemId: block.id, kind: kind === 'plan' ? 'plan' : 'tool', completed: false });
        // A plan is announced once its entries are known (the assistant frame), not empty.
        if (kind === 'plan') return [];
        if (!firstStart(state, block.id)) return passthrough(frame, lane, 'duplicate');
        const item = startTool(state, block.id, block.name, kind, {});
        return [withLane({ type: 'item.started', item }, lane)];
      }
      return passthrough(frame, lane);
    }
    case 'content_block_delta': {
      const messageId = state.currentMessage.get(laneKey);
      const block =
        messageId === undefined || !Number.isInteger(event.index)
          ? undefined
          : state.blocks.get(blockKey(messageId, event.index as number));
      if (!block) return passthrough(frame, lane);
      if (!isObject(event.delta)) return passthrough(frame, lane, 'unparsable');
      const delta = event.delta as { type: string; text?: string; thinking?: string; partial_json?: string };
      if (delta.type === 'text_delta' && typeof delta.text === 'string') {
        return [withLane({ type: 'item.delta', itemId: block.itemId, kind: 'text', text: delta.text }, lane)];
      }
      if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
        return [withLane({ type: 'item.delta', itemId: block.itemId, kind: 'reasoning', text: delta.thinking }, lane)];
      }
      if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
        if (block.kind === 'plan') return [];
        return [
          withLane({ type: 'item.delta', itemId: block.itemId, kind: 'tool_input', text: delta.partial_json }, lane),
        ];
      }
      // signature_delta authenticates a thinking block for the API; nothing to show.
      if (delta.type === 'signature_delta') return [];
      return passthrough(frame, lane);
    }
    // Block and message boundaries: the assistant frame and `result` carry the truth for these.
    case 'content_block_stop':
    case 'message_stop':
      return [];
    case 'message_delta':
      return [];
    default:
      return passthrough(frame, lane);
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

function translateAssistant(state: TranslationState, frame: WireAssistantMessage): Emission[] {
  const lane = laneOf(frame);
  const message = frame.message;
  if (!isObject(message) || !Array.isArray(message.content)) return passthrough(frame, lane, 'unparsable');
  // A synthetic message WITH a top-level error is a provider failure; without one it is the CLI
  // speaking for itself ("Not enough messages to compact.", 2.1.197) and shows as agent text.
  if (typeof frame.error === 'string') {
    const status = num((frame as unknown as JsonObject).api_error_status);
    const error = mapAssistantError(frame.error ?? 'unknown', blockText(message.content), status, state.facts.model);
    if (lane === undefined) state.turnError = error;
    return [withLane({ type: 'error', ...error, fatal: false }, lane)];
  }
  if (typeof message.id !== 'string') return passthrough(frame, lane, 'unparsable');
  if (state.finishedMessages?.has(message.id)) return passthrough(frame, lane, 'duplicate');
  if (lane === undefined) state.contextUsed = promptTokens(message.usage) ?? state.contextUsed;
  state.messageLanes.set(message.id, lane ?? '');
  const out: Emission[] = [];
  const first = state.assistantFrames.get(message.id) ?? 0;
  state.assistantFrames.set(message.id, first + message.content.length);
  let malformed = false;
  // A loop, not forEach: no closure per frame (the bench's translate figure). Holes are skipped as forEach does.
  const content: unknown[] = message.content;
  for (let offset = 0; offset < content.length; offset++) {
    if (!(offset in content)) continue;
    const raw = content[offset];
    const key = blockKey(message.id, first + offset);
    const known = state.blocks.get(key);
    if (!isObject(raw)) {
      malformed = true;
      continue;
    }
    const block = raw as WireContentBlock & JsonObject;
    if (block.type === 'text' || block.type === 'thinking' || block.type === 'redacted_thinking') {
      const text = block.type === 'text' ? block.text : block.type === 'thinking' ? block.thinking : '';
      const kind = block.type === 'text' ? 'text' : 'reasoning';
      // Text that is not a string, or a block streamed as another kind than it now claims, contradicts the wire.
      if (typeof text !== 'string' || (known !== undefined && known.kind !== kind)) {
        malformed = true;
        continue;
      }
      const item: Item =
        kind === 'text'
          ? { kind: 'agent_message', id: key, status: 'completed', text }
          : { kind: 'reasoning', id: key, status: 'completed', text };
      if (known?.completed) continue;
      if (!known) {
        const started: Item =
          kind === 'text'
            ? { kind: 'agent_message', id: key, status: 'running', text: '' }
            : { kind: 'reasoning', id: key, status: 'running', text: '' };
        out.push(withLane({ type: 'item.started', item: started }, lane));
      }
      state.blocks.set(key, { itemId: key, kind, completed: true });
      out.push(withLane({ type: 'item.completed', item }, lane));
      continue;
    }
    if (block.type === 'tool_use') {
      const use = block as { id: unknown; name: unknown; input: unknown };
      if (typeof use.id !== 'string' || typeof use.name !== 'string') {
        malformed = true;
        continue;
      }
      const kind = state.options.classifyTool(use.name);
      const existing = state.tools.get(use.id);
      // A tool_use re-sent after its call settled (its result seen) starts nothing again.
      if (!existing && !firstStart(state, use.id)) {
        out.push(...passthrough(frame, lane, 'duplicate'));
        continue;
      }
      if (kind === 'plan') {
        const plan = { kind: 'plan' as const, id: use.id, entries: planEntries(use.input) };
        state.tools.set(use.id, plan);
        state.blocks.set(key, { itemId: use.id, kind: 'plan', completed: true });
        out.push(
          withLane(
            { type: 'item.started', item: { kind: 'plan', id: plan.id, entries: plan.entries, status: 'running' } },
            lane,
          ),
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
        out.push(withLane({ type: 'item.started', item }, lane));
      }
      state.blocks.set(key, { itemId: use.id, kind: 'tool', completed: true });
      continue;
    }
    out.push(...passthrough(frame, lane));
  }
  if (malformed) out.push(...passthrough(frame, lane, 'unparsable'));
  return out;
}

function translateResult(state: TranslationState, result: WireResult): Emission[] {
  const usage = resultUsage(state, result);
  const outcome = resultOutcome(state, result);
  const out: Emission[] = [];
  if (usage) out.push({ payload: { type: 'usage.updated', ...usage } });
  out.push({
    payload: {
      type: 'turn.completed',
      outcome:
        outcome === 'completed' || outcome === 'cancelled' ? { status: outcome } : { status: 'failed', error: outcome },
      ...(usage ? { usage } : {}),
      ...(result.structured_output !== undefined ? { structuredOutput: sendable(result.structured_output) } : {}),
      ...(typeof result.stop_reason === 'string' ? { stopReason: result.stop_reason } : {}),
    },
  });
  turnEndedForTasks(state.tasks);
  resetTurnState(state);
  return out;
}
