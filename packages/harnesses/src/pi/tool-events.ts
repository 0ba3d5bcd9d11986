// Pi tool calls as tool_call items: started from the streamed toolCall block or tool_execution_start,
// their accumulated output previewed as deltas, completed by tool_execution_end with the exit code and the
// changed files (Pi 0.73.1). Pure; the state is the translation's (state.ts).
import { isRecord, type ToolCallItem } from '@reins/core';
import { fileChanges, piToolKind, resultText, sendable, str } from './messages.js';
import { emitItem, type PayloadSink, passthrough } from './sink.js';
import type { PiTranslateState } from './state.js';

/** Starts a tool call unless it runs already or completed before (a re-sent frame); false then. */
export function startTool(
  state: PiTranslateState,
  id: string,
  name: string,
  input: unknown,
  frame: unknown,
  sink: PayloadSink,
): boolean {
  if (state.tools.has(id) || state.seen?.get(id) === 'completed') return false;
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status: 'running',
    tool: { kind: piToolKind(name), name },
    input: sendable(input ?? {}),
  };
  state.tools.set(id, item);
  emitItem(state, sink, frame, { type: 'item.started', item });
  return true;
}

/** Pi 0.73.1 bash reports a non-zero exit only as this status line in the failed result's text. */
const EXIT_CODE_LINE = /Command exited with code (\d+)\s*$/;

/**
 * A copy of a tool item (already emitted, so never changed in place) with another status and input.
 * Key by key, in the item's order (kind, id, status, tool, input): the copy then gains output, exitCode
 * and changes, and a spread copy that gains keys takes V8's slow path (bench/README.md).
 */
export function toolCopy(open: ToolCallItem, status: ToolCallItem['status'], input: unknown): ToolCallItem {
  return { kind: 'tool_call', id: open.id, status, tool: open.tool, input };
}

/**
 * Pi 0.73.1's bash exit status, when the text's status line names one the contract can hold (an
 * integer; a longer digit run than any exit status is left out rather than clamped).
 */
function exitCodeOf(text: string): number | undefined {
  const match = EXIT_CODE_LINE.exec(text);
  if (!match) return undefined;
  const code = Number(match[1]);
  return code <= 0x7fffffff ? code : undefined;
}

/** tool_execution_start / _update / _end. */
export function onTool(state: PiTranslateState, event: Record<string, unknown>, sink: PayloadSink): void {
  const id = str(event.toolCallId);
  if (id === undefined) {
    sink.emit(passthrough(event, 'unparsable'));
    return;
  }
  if (state.seen?.get(id) === 'completed') {
    sink.emit(passthrough(event, 'duplicate'));
    return;
  }
  const name = str(event.toolName) ?? 'tool';
  const args = isRecord(event.args) ? event.args : undefined;
  startTool(state, id, name, args, event, sink);
  const open = state.tools.get(id) as ToolCallItem;
  if (event.type !== 'tool_execution_end') {
    if (args) state.tools.set(id, toolCopy(open, open.status, sendable(args)));
    const text = event.type === 'tool_execution_update' ? resultText(event.partialResult) : undefined;
    if (text === undefined) return;
    // Pi sends the accumulated output each time: preview only what is new.
    const seen = state.toolOutput.get(id) ?? '';
    const fresh = text.startsWith(seen) ? text.slice(seen.length) : text;
    state.toolOutput.set(id, text);
    if (fresh) sink.emit({ type: 'item.delta', itemId: id, kind: 'tool_output', text: fresh });
    return;
  }
  const isError = event.isError === true;
  const result = event.result;
  state.tools.delete(id);
  state.toolOutput.delete(id);
  const text = resultText(result);
  const item = toolCopy(open, isError ? 'failed' : 'completed', open.input);
  const details = isRecord(result) ? result.details : undefined;
  const structured = details !== undefined && details !== null;
  if (text !== undefined) item.output = structured ? { text, structured: sendable(details) } : { text };
  else if (structured) item.output = { structured: sendable(details) };
  if (name === 'bash' && isError && text) {
    const exitCode = exitCodeOf(text);
    if (exitCode !== undefined) item.exitCode = exitCode;
  }
  const changes = fileChanges(name, open.input, result, isError);
  if (changes) item.changes = changes;
  emitItem(state, sink, event, { type: 'item.completed', item });
}
