// What the stream-json translation remembers about one session (translate.ts reads frames against it):
// the session's facts, this turn's API messages with their content blocks and tool calls, and the
// bounded sets that recognise a re-sent frame; and how a turn's end forgets them.
//
// Cost (the bench's translate figure, Node 20): a session's state is one object, and a turn's
// bookkeeping is made on the turn's first use and dropped whole at its end (no Map.clear(), which
// allocates a fresh table even for an empty Map). Content blocks are found through their message and
// their index (an array), not by a `${messageId}:${index}` string key: no string is built and hashed per
// streamed delta.
import type { ErrorInfo, PlanEntry, ToolCallItem, ToolKind } from '@reins/core';
import { createTaskState, type TaskState } from './task-state.js';

export type { Emission } from './sink.js';

export interface StreamJsonOptions {
  /** `native.source` of the events: 'claude.stream-json', 'amp.stream-json'. */
  source: string;
  /** The harness speaking the frames, as its error messages name it: 'Claude Code', 'Amp'. */
  harnessName: string;
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

export interface SessionFacts {
  nativeSessionId?: string;
  model?: string;
  tools?: string[];
  apiKeySource?: string;
  mode?: string;
  harnessVersion?: string;
}

/** A content block of an API message: the item made from it. */
export interface BlockState {
  itemId: string;
  kind: 'text' | 'reasoning' | 'tool' | 'plan';
  completed: boolean;
  message: MessageState;
  /** When it was made (a sequence number): blocks are listed in the order made. */
  readonly made: number;
}

/** One API message (one `message.id`) the translation knows. */
export interface MessageState {
  readonly id: string;
  /** Its lane: '' = the main thread, else parent_tool_use_id (the lane of its latest frame). */
  lane: string;
  /** Content blocks in assistant frames seen so far: the index of its next assistant frame's first block. */
  frames: number;
  /** When its first assistant frame came (a sequence number); 0: none yet. */
  framed: number;
  /** Its blocks by content index (an index from the wire may be any integer: then a sparse array). */
  blocks: Array<BlockState | undefined>;
  /** False once a turn's end forgot it while a lane's current message still points at it. */
  registered: boolean;
}

export type ToolState = ToolCallItem | { kind: 'plan'; id: string; entries: PlanEntry[] };

export class TranslationState {
  readonly options: Required<StreamJsonOptions>;
  /** What the harness last reported about the session (init). */
  facts: SessionFacts = {};
  meteredNoticeSent = false;
  /** The main thread's current API message (lane ''). */
  mainMessage: MessageState | undefined = undefined;
  /** The current API message of each subagent lane (parent_tool_use_id); undefined until one has any. */
  laneMessages: Map<string, MessageState> | undefined = undefined;
  /** The messages of this turn (and of background lanes), in the order first seen. */
  messages: MessageState[] | undefined = undefined;
  /** The same by id, once there are more than a few (most turns have one to a few: a scan is cheaper). */
  messageIndex: Map<string, MessageState> | undefined = undefined;
  /** Tool calls (and TodoWrite plans) of this turn by tool_use id; undefined until one starts (`tools` makes it). */
  toolCalls: Map<string, ToolState> | undefined = undefined;
  /** Tool use ids the client (or a deadline) refused; undefined until one is (`declined` makes it). */
  declinedIds: Set<string> | undefined = undefined;
  /** A provider error reported by a synthetic assistant message in this turn. */
  turnError: ErrorInfo | undefined = undefined;
  /** Set by the adapter when it asked the harness to stop the running turn. */
  interruptRequested = false;
  /** Prompt size of the last main-thread API call (input + cache), the context in use. */
  contextUsed: number | undefined = undefined;
  compactions = 0;
  /** Tasks that run past their turn (tasks.ts); undefined until any task frame or caller needs it (`tasks`). */
  taskState: TaskState | undefined = undefined;
  /** Tool use ids and compaction uuids ever started (bounded), so a re-sent frame does not start its item again. */
  startedTools: Set<string> | undefined = undefined;
  /** API message ids of turns that ended (bounded): a frame of one now is re-sent or stale, not news. */
  finishedMessages: Set<string> | undefined = undefined;

  constructor(options: Required<StreamJsonOptions>) {
    this.options = options;
  }

  /** Tool use ids the client (or a deadline) refused: their results settle as `declined`. */
  get declined(): Set<string> {
    this.declinedIds ??= new Set();
    return this.declinedIds;
  }

  /** Tool calls (and TodoWrite plans) of this turn by tool_use id. */
  get tools(): Map<string, ToolState> {
    this.toolCalls ??= new Map();
    return this.toolCalls;
  }

  /** Tasks that run past their turn (tasks.ts). */
  get tasks(): TaskState {
    this.taskState ??= createTaskState();
    return this.taskState;
  }

  /** Background work is running (tasks.ts): its lanes outlive the turn. */
  get hasBackground(): boolean {
    return this.taskState !== undefined && this.taskState.background.size > 0;
  }
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

/** The options with their defaults; an adapter may resolve its options once and share them. */
export function resolveStreamJsonOptions(options: StreamJsonOptions): Required<StreamJsonOptions> {
  return {
    source: options.source,
    harnessName: options.harnessName,
    classifyTool: options.classifyTool ?? defaultClassifyTool,
    isMeteredKeySource: options.isMeteredKeySource ?? defaultIsMeteredKeySource,
    plainResultExitsZero: options.plainResultExitsZero ?? true,
  };
}

export function createTranslationState(options: StreamJsonOptions): TranslationState {
  return new TranslationState(resolveStreamJsonOptions(options));
}

/**
 * Orders blocks by when they were made and messages by their first assistant frame (what a turn's end
 * and background work list them by), without a list of each kept per turn. One counter for every
 * session: only the order within a session is read.
 */
let sequence = 0;

/**
 * The blocks of a message that has none yet, one list for all: only setBlock writes blocks, and it
 * replaces this list rather than writing into it. A message's first block then makes a list of one,
 * where an assignment into `[]` reserves 17 slots: most messages have one block (the bench's translate
 * figure). Not frozen: a frozen list is another kind of array at every lookup of a block, which then
 * goes through the slow generic lookup.
 */
const NO_BLOCKS: Array<BlockState | undefined> = [];

/** Messages a turn holds before they are also indexed by id. */
const SCANNED_MESSAGES = 8;

/** The message `id` of this turn, registered on `lane` (its latest frame's lane). */
export function registerMessage(state: TranslationState, id: string, lane: string): MessageState {
  const known = findMessage(state, id);
  if (known) {
    known.lane = lane;
    return known;
  }
  const message: MessageState = { id, lane, frames: 0, framed: 0, blocks: NO_BLOCKS, registered: true };
  // The turn's first message makes a list of one: a push onto `[]` would reserve 17 slots.
  if (state.messages === undefined) state.messages = [message];
  else state.messages.push(message);
  if (state.messageIndex) state.messageIndex.set(id, message);
  else if (state.messages.length > SCANNED_MESSAGES) reindexMessages(state, state.messages);
  return message;
}

function findMessage(state: TranslationState, id: string): MessageState | undefined {
  if (state.messageIndex) return state.messageIndex.get(id);
  if (state.messages) for (const message of state.messages) if (message.id === id) return message;
  return undefined;
}

/** Sets the turn's messages (in order), indexed by id when there are more than a few. */
export function reindexMessages(state: TranslationState, messages: MessageState[]): void {
  state.messages = messages;
  if (messages.length <= SCANNED_MESSAGES) {
    state.messageIndex = undefined;
    return;
  }
  state.messageIndex = new Map();
  for (const message of messages) state.messageIndex.set(message.id, message);
}

/** The current API message of a lane ('' = the main thread). */
export function currentMessage(state: TranslationState, lane: string): MessageState | undefined {
  return lane === '' ? state.mainMessage : state.laneMessages?.get(lane);
}

export function setCurrentMessage(state: TranslationState, lane: string, message: MessageState): void {
  if (lane === '') state.mainMessage = message;
  else {
    state.laneMessages ??= new Map();
    state.laneMessages.set(lane, message);
  }
}

/** Counts an assistant frame's blocks; returns the content index of its first block. */
export function countAssistantFrame(message: MessageState, blocks: number): number {
  const first = message.frames;
  message.frames = first + blocks;
  if (message.framed === 0) message.framed = ++sequence;
  return first;
}

/** Sets the block at `index` of `message` (an existing one is updated in place, keeping its place in order). */
export function setBlock(
  message: MessageState,
  index: number,
  itemId: string,
  kind: BlockState['kind'],
  completed: boolean,
): void {
  const known = message.blocks[index];
  if (known) {
    known.itemId = itemId;
    known.kind = kind;
    known.completed = completed;
    return;
  }
  const block: BlockState = { itemId, kind, completed, message, made: ++sequence };
  if (message.blocks !== NO_BLOCKS) message.blocks[index] = block;
  else if (index === 0) message.blocks = [block];
  else {
    message.blocks = [];
    message.blocks[index] = block;
  }
}

/** `:0`, `:1`, ...: the ends of the item ids of a message's first blocks, made once. */
const BLOCK_SUFFIXES = Array.from({ length: 16 }, (_, index) => `:${index}`);

/** The item id of a text or reasoning block: `${messageId}:${index}` (one concatenation for most blocks). */
export function blockItemId(message: MessageState, index: number): string {
  const suffix = BLOCK_SUFFIXES[index];
  return suffix !== undefined ? message.id + suffix : `${message.id}:${index}`;
}

export function setTool(state: TranslationState, id: string, tool: ToolState): void {
  state.toolCalls ??= new Map();
  state.toolCalls.set(id, tool);
}

/** At most this many ids are remembered for de-duplication. */
const REMEMBERED_IDS = 10_000;

/** Adds an id to a bounded remembered set (the oldest is forgotten first); returns the set. */
function remember(ids: Set<string> | undefined, id: string): Set<string> {
  const set = ids ?? new Set<string>();
  set.add(id);
  if (set.size > REMEMBERED_IDS) {
    const oldest = set.values().next().value;
    if (oldest !== undefined) set.delete(oldest);
  }
  return set;
}

function finished(state: TranslationState, message: MessageState): void {
  state.finishedMessages = remember(state.finishedMessages, message.id);
}

/** Records a tool use id as started; false when it was started before (a re-sent frame). */
export function firstStart(state: TranslationState, id: string): boolean {
  if (state.startedTools?.has(id)) return false;
  state.startedTools = remember(state.startedTools, id);
  return true;
}

/** Forgets a settled tool call (the last one of the turn drops the Map: Map.delete would shrink it into a new table). */
export function settleTool(state: TranslationState, id: string): void {
  const tools = state.toolCalls;
  if (tools === undefined) return;
  if (tools.size === 1 && tools.has(id)) state.toolCalls = undefined;
  else tools.delete(id);
}

/**
 * A turn's messages in the order its end remembers them as finished: those with an assistant frame in
 * the order of their first one, then the others in the order seen. Mostly that is `messages` itself.
 */
function finishOrder(messages: MessageState[]): MessageState[] {
  let framed = 0;
  let inOrder = true;
  let last = 0;
  for (const message of messages) {
    if (message.framed === 0) continue;
    framed++;
    if (message.framed < last) inOrder = false;
    last = message.framed;
  }
  if (framed === messages.length && inOrder) return messages;
  const ordered = messages.filter((message) => message.framed !== 0);
  if (!inOrder) ordered.sort((a, b) => a.framed - b.framed);
  for (const message of messages) if (message.framed === 0) ordered.push(message);
  return ordered;
}

/**
 * The per-turn reset, for everything but background work: what a background task's subagent started
 * (its messages, blocks and open tool calls) must still match its later frames. A lane whose current
 * message is forgotten here keeps pointing at it (with no blocks): its later frames are a finished
 * message's.
 */
export function retainBackgroundLanes(state: TranslationState): void {
  const background = state.tasks.background;
  if (state.mainMessage && !background.has('')) state.mainMessage = undefined;
  if (state.laneMessages)
    for (const lane of state.laneMessages.keys()) if (!background.has(lane)) state.laneMessages.delete(lane);
  const keptTools = new Set(background.keys());
  if (state.messages) {
    const kept: MessageState[] = [];
    for (const message of state.messages) {
      if (background.has(message.lane)) {
        kept.push(message);
        for (const block of Object.values(message.blocks)) if (block !== undefined) keptTools.add(block.itemId);
        continue;
      }
      message.registered = false;
      message.blocks = NO_BLOCKS;
      message.frames = 0;
      message.framed = 0;
    }
    reindexMessages(state, kept);
  }
  // A forgotten message a lane still points at keeps no block (made since it was forgotten, too).
  if (state.mainMessage && !state.mainMessage.registered) state.mainMessage.blocks = NO_BLOCKS;
  if (state.laneMessages)
    for (const message of state.laneMessages.values()) if (!message.registered) message.blocks = NO_BLOCKS;
  if (state.toolCalls) for (const id of state.toolCalls.keys()) if (!keptTools.has(id)) state.toolCalls.delete(id);
}

/** Forget per-turn bookkeeping (call after a turn's terminal). */
export function resetTurnState(state: TranslationState): void {
  if (!state.hasBackground) {
    // The common case: no background work, so every message of the turn is finished (those with an
    // assistant frame first, in that order, then the others) and the turn's bookkeeping is dropped whole.
    if (state.messages) for (const message of finishOrder(state.messages)) finished(state, message);
    state.mainMessage = undefined;
    state.laneMessages = undefined;
    state.messages = undefined;
    state.messageIndex = undefined;
    state.toolCalls = undefined;
  } else {
    // Background work outlives the turn: its lanes stay (tasks.ts), everything else is forgotten, and its
    // messages are remembered as finished.
    const seen = finishOrder(state.messages ?? []);
    retainBackgroundLanes(state);
    for (const message of seen) if (!message.registered) finished(state, message);
  }
  state.declinedIds = undefined;
  state.turnError = undefined;
  state.interruptRequested = false;
}
