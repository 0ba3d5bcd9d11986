// Tool calls in stream-json: a tool_use block starts a tool_call item (TodoWrite: a plan item), its
// tool_result in a user frame completes it, with the exit code, the changed files and the interrupt rule
// of Claude Code 2.1.197 (2.1.332 the same). Pure; the state is the translation's (translate.ts).
import type { FileChange, PlanEntry, ToolCallItem, ToolKind } from '@reins/core';
import type { EmissionSink } from './sink.js';
import { setTool, settleTool, type TranslationState } from './state.js';
import { backgroundLaunch, emitOnLane, emitPassthrough } from './tasks.js';
import { isObject, laneOf, sendable } from './values.js';
import type { WireContentBlock, WireUserMessage } from './wire.js';

export function toolTitle(kind: ToolKind, input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  if (kind === 'command' && typeof input.command === 'string') return input.command;
  if (kind === 'file_change') {
    const path = input.file_path ?? input.notebook_path;
    if (typeof path === 'string') return path;
  }
  if (kind === 'subagent' && typeof input.description === 'string') return input.description;
  if (kind === 'web_search') {
    const target = input.query ?? input.url;
    if (typeof target === 'string') return target;
  }
  return undefined;
}

export function startTool(
  state: TranslationState,
  id: string,
  name: string,
  kind: ToolKind,
  input: unknown,
): ToolCallItem {
  const title = toolTitle(kind, input);
  // Assignments, not a spread of a conditional literal (slow on Node 20: the bench's translate figure).
  const tool: ToolCallItem['tool'] = { kind, name };
  if (title) tool.title = title;
  const item: ToolCallItem = { kind: 'tool_call', id, status: 'running', tool, input: sendable(input) };
  setTool(state, id, item);
  return item;
}

export function planEntries(input: unknown): PlanEntry[] {
  const todos = isObject(input) && Array.isArray(input.todos) ? input.todos : [];
  return todos.filter(isObject).map((todo) => ({
    text: typeof todo.content === 'string' ? todo.content : typeof todo.activeForm === 'string' ? todo.activeForm : '',
    status: todo.status === 'completed' || todo.status === 'in_progress' ? todo.status : 'pending',
  }));
}

/** What an interrupted tool's result starts with (a prefix test, not a regex: it runs for every result). */
const INTERRUPT_MARKER = '[Request interrupted by user';

/** The text of a tool result: its string content, or its text parts joined (a loop: no mapped copy and join). */
function resultText(block: { content?: unknown }): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (let index = 0; index < content.length; index++) {
    const part: unknown = content[index];
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

function fileChanges(item: ToolCallItem, structured: unknown): FileChange[] | undefined {
  const input = isObject(item.input) ? item.input : {};
  const path = input.file_path ?? input.notebook_path;
  if (typeof path !== 'string') return undefined;
  if (item.tool.name === 'Write') {
    // The Write result says whether it created or replaced the file.
    const type = isObject(structured) ? structured.type : undefined;
    return [{ path, kind: type === 'update' ? 'update' : 'add' }];
  }
  return [{ path, kind: 'update' }];
}

/** A user frame: the tool results it carries complete their calls; anything else passes through. */
export function translateUser(state: TranslationState, frame: WireUserMessage, sink: EmissionSink): void {
  const lane = laneOf(frame.parent_tool_use_id);
  const content = isObject(frame.message) ? frame.message.content : undefined;
  // Prompts echoed back, interrupt markers, synthetic nudges and replays are never user input here:
  // the adapter announced the real input itself when the turn started.
  if (!Array.isArray(content)) {
    emitPassthrough(state, sink, frame, lane);
    return;
  }
  // Two loops over the blocks rather than a filtered copy (the bench's translate figure); a hole reads as
  // undefined, which is no tool result, so both skip holes as filter() does without an `in` check.
  let results = 0;
  for (let index = 0; index < content.length; index++) if (isToolResult(content[index])) results++;
  if (results === 0) {
    emitPassthrough(state, sink, frame, lane);
    return;
  }
  let unmatched = results !== content.length;
  for (let index = 0; index < content.length; index++) {
    const block = content[index];
    if (!isToolResult(block)) continue;
    const tool = state.toolCalls?.get(block.tool_use_id);
    if (!tool) {
      unmatched = true;
      continue;
    }
    const text = resultText(block);
    const structured = results === 1 ? sendable(frame.tool_use_result) : undefined;
    // A Task whose subagent runs in the background is not done yet (tasks.ts).
    if (backgroundLaunch(state, block.tool_use_id, structured, frame, sink, lane)) continue;
    // An interrupted tool reports an error result ("The user doesn't want to proceed...", 2.1.197).
    const interrupted =
      text.startsWith(INTERRUPT_MARKER) ||
      (block.is_error === true &&
        (state.interruptRequested || (isObject(structured) && structured.interrupted === true)));
    const status = state.declinedIds?.has(block.tool_use_id)
      ? 'declined'
      : interrupted
        ? 'cancelled'
        : block.is_error
          ? 'failed'
          : 'completed';
    settleTool(state, block.tool_use_id);
    // Literals rather than `{ ...tool, status, output }`: on Node 20 a spread copy that gains a key
    // costs ~1.5 µs (the bench's translate figure); same keys, same order.
    if (tool.kind === 'plan') {
      emitOnLane(
        state,
        sink,
        { type: 'item.completed', item: { kind: 'plan', id: tool.id, entries: tool.entries, status } },
        lane,
      );
      continue;
    }
    const item: ToolCallItem = {
      kind: 'tool_call',
      id: tool.id,
      status,
      tool: tool.tool,
      input: tool.input,
      output: structured !== undefined ? { text, structured } : { text },
    };
    if (tool.tool.kind === 'command' && status !== 'cancelled' && status !== 'declined') {
      // Claude Code reports a non-zero exit as an error result starting "Exit code N" and a
      // zero exit as a plain result (2.1.197).
      const code = block.is_error
        ? /^Exit code (\d+)/.exec(text)?.[1]
        : state.options.plainResultExitsZero
          ? '0'
          : undefined;
      if (code !== undefined) item.exitCode = Number(code);
    }
    if (tool.tool.kind === 'file_change' && status === 'completed') {
      const changes = fileChanges(tool, structured);
      if (changes) item.changes = changes;
    }
    emitOnLane(state, sink, { type: 'item.completed', item }, lane);
  }
  if (unmatched) emitPassthrough(state, sink, frame, lane);
}

function isToolResult(block: unknown): block is Extract<WireContentBlock, { type: 'tool_result' }> {
  return isObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string';
}
