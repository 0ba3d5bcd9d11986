// Pure: Reins tool_call items -> ACP tool calls. A tool_call item is one ACP tool call (toolCallId =
// the item id): `tool_call` when it starts, `tool_call_update` for output and for the end. ACP content
// REPLACES the collection, so output updates carry all the output so far. A file change carries
// `diff` content: from the change's unified diff, or, where the harness reported none, from the
// tool's own input (the text a write puts in a file, the text an edit replaces and its replacement).
import { type FileChange, type Item, isRecord, type ToolCallItem, type ToolInfo } from '@reins/core';
import { boundedJson } from '../json.js';
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from './wire.js';

export interface ToolProgress {
  /** The client has heard of this toolCallId (tool_call, or a permission request naming it). */
  announced: boolean;
  /** Output text gathered from tool_output deltas. */
  output: string;
}

export type ToolProgressMap = Map<string, ToolProgress>;

/** Reins tool kind -> ACP tool kind: the reverse of the ACP adapter's toolKindOf. */
export function acpToolKindOf(tool: ToolInfo, changes?: FileChange[]): ToolKind {
  switch (tool.kind) {
    case 'command':
      return 'execute';
    case 'file_change':
      if (changes?.length && changes.every((change) => change.kind === 'delete')) return 'delete';
      if (changes?.length && changes.every((change) => change.kind === 'move')) return 'move';
      return 'edit';
    case 'web_search':
      return 'fetch';
    // ACP has no kind for MCP tools or subagents; the title and name say what they are.
    default:
      return 'other';
  }
}

function acpToolStatusOf(status: Item['status']): ToolCallStatus {
  if (status === 'running') return 'in_progress';
  // ACP has no declined or cancelled tool status: a tool that did not run to the end failed.
  return status === 'completed' ? 'completed' : 'failed';
}

/**
 * A unified diff -> the before and after text ACP's diff content wants. With hunks, both sides hold
 * the hunks' lines (context and changes), not necessarily the whole file: a diff carries no more.
 * Without hunks, only an added file's text is known (Codex 0.169.0 gives a new file's content as its
 * "diff"); anything else has no honest before/after and gets none.
 */
export function diffTexts(change: FileChange): { oldText: string | null; newText: string } | undefined {
  const diff = change.diff;
  if (diff === undefined) return undefined;
  const lines = diff.split('\n');
  if (!lines.some((line) => line.startsWith('@@'))) {
    return change.kind === 'add' ? { oldText: null, newText: diff } : undefined;
  }
  const before: string[] = [];
  const after: string[] = [];
  let inHunk = false;
  for (const line of lines) {
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith('\\')) continue;
    if (line.startsWith('+')) after.push(line.slice(1));
    else if (line.startsWith('-')) before.push(line.slice(1));
    else if (line.startsWith(' ')) {
      before.push(line.slice(1));
      after.push(line.slice(1));
    } else if (line.startsWith('diff ')) inHunk = false;
  }
  return {
    oldText: change.kind === 'add' ? null : before.join('\n'),
    newText: change.kind === 'delete' ? '' : after.join('\n'),
  };
}

type Texts = { oldText: string | null; newText: string };

/** The replaced and replacing text of one edit, under the names harnesses give them. */
function editTexts(edit: unknown): Texts | undefined {
  if (!isRecord(edit)) return undefined;
  for (const [before, after] of [
    ['old_string', 'new_string'], // Claude Code 2.1.x Edit / MultiEdit
    ['oldText', 'newText'], // Pi 0.73 edit
    ['old_str', 'new_str'],
  ] as const) {
    const oldText = edit[before];
    const newText = edit[after];
    if (typeof oldText === 'string' && typeof newText === 'string') return { oldText, newText };
  }
  return undefined;
}

/**
 * Diffs a file change's tool input says, for a change that came without one: a whole-file write
 * (`content`) of a new file, or of an existing one whose previous text the result kept
 * (`originalFile`, Claude Code 2.1.197's Write result); edits (`old_string`/`new_string`, a list of
 * them under `edits`). Nothing is guessed: a rewrite whose old text is unknown gets no diff.
 */
export function inputDiffs(item: ToolCallItem, change: FileChange): Texts[] {
  const input = isRecord(item.input) ? item.input : {};
  const content = input.content;
  if (typeof content === 'string') {
    if (change.kind === 'add') return [{ oldText: null, newText: content }];
    const structured = item.output?.structured;
    const original = isRecord(structured) ? structured.originalFile : undefined;
    return typeof original === 'string' ? [{ oldText: original, newText: content }] : [];
  }
  const edits = Array.isArray(input.edits) ? input.edits : [input];
  return edits.flatMap((edit) => editTexts(edit) ?? []);
}

function toolContent(item: ToolCallItem, outputText: string | undefined): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  if (outputText) content.push({ type: 'content', content: { type: 'text', text: outputText } });
  const changes = item.changes ?? [];
  for (const change of changes) {
    const texts = diffTexts(change);
    // A tool's input tells one file's change; with several changes it cannot say which is which.
    const diffs = texts ? [texts] : changes.length === 1 && item.status !== 'running' ? inputDiffs(item, change) : [];
    for (const diff of diffs) content.push({ type: 'diff', path: change.path, ...diff });
  }
  return content;
}

function toolLocations(changes: FileChange[] | undefined): ToolCallLocation[] | undefined {
  if (!changes?.length) return undefined;
  return changes.flatMap((change) => [{ path: change.path }, ...(change.movePath ? [{ path: change.movePath }] : [])]);
}

/** rawOutput: the structured result as the harness gave it; the exit code joins it where it is missing. */
function rawOutputOf(item: ToolCallItem): unknown {
  const structured = item.output?.structured;
  if (item.exitCode === undefined) return structured;
  if (structured === undefined) return { exitCode: item.exitCode };
  if (isRecord(structured) && structured.exitCode === undefined) return { ...structured, exitCode: item.exitCode };
  return structured;
}

function toolFields(item: ToolCallItem, streamedOutput: string) {
  const outputText = item.output?.text ?? (streamedOutput || undefined);
  const content = toolContent(item, outputText);
  const locations = toolLocations(item.changes);
  const rawOutput = rawOutputOf(item);
  return {
    toolCallId: item.id,
    title: item.tool.title ?? item.tool.name,
    name: item.tool.name,
    kind: acpToolKindOf(item.tool, item.changes),
    status: acpToolStatusOf(item.status),
    // A tool still running with nothing to show yet sends no content, so it clears nothing.
    ...(content.length > 0 ? { content } : {}),
    ...(locations ? { locations } : {}),
    ...(item.input !== undefined ? { rawInput: boundedJson(item.input) } : {}),
    ...(rawOutput !== undefined ? { rawOutput: boundedJson(rawOutput) } : {}),
  };
}

function toolMeta(parentItemId: string | undefined): { _meta?: Record<string, unknown> } {
  // ACP v1 has no subagent lanes; the parent is kept where a client can look for it.
  return parentItemId ? { _meta: { reins: { parentItemId } } } : {};
}

export function startTool(
  tools: ToolProgressMap,
  item: ToolCallItem,
  parentItemId: string | undefined,
): SessionUpdate[] {
  const progress = tools.get(item.id) ?? { announced: false, output: '' };
  tools.set(item.id, progress);
  const fields = toolFields(item, progress.output);
  const wasAnnounced = progress.announced;
  progress.announced = true;
  if (wasAnnounced) return [{ sessionUpdate: 'tool_call_update', ...fields, ...toolMeta(parentItemId) }];
  return [{ sessionUpdate: 'tool_call', ...fields, ...toolMeta(parentItemId) }];
}

export function toolOutput(tools: ToolProgressMap, itemId: string, text: string): SessionUpdate[] {
  const progress = tools.get(itemId) ?? { announced: false, output: '' };
  tools.set(itemId, progress);
  progress.output += text;
  // Output for a call the client never heard of waits for the completed item, which names the tool.
  if (!progress.announced) return [];
  return [
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: itemId,
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: progress.output } }],
    },
  ];
}

export function finishTool(
  tools: ToolProgressMap,
  item: ToolCallItem,
  parentItemId: string | undefined,
): SessionUpdate[] {
  const progress = tools.get(item.id);
  tools.delete(item.id);
  const fields = toolFields(item, progress?.output ?? '');
  const meta = toolMeta(parentItemId);
  if (progress?.announced) return [{ sessionUpdate: 'tool_call_update', ...fields, ...meta }];
  return [{ sessionUpdate: 'tool_call', ...fields, ...meta }];
}
