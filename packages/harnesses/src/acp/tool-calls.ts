// ACP tool calls as Reins tool_call items: tool_call / tool_call_update / the toolCall of a permission
// request, all for one toolCallId, make ONE item. Pure, and total over any value the agent sends: fields
// without the schema's types are left out (never guessed), a tool kind newer than the pinned SDK is
// `other`, and a frame with no string toolCallId passes through.
//
// Rules (recorded agents):
// - An update for an unknown id opens the item (Gemini CLI 0.61.0 sends its shell tool as permission
//   request + tool_call_update with no tool_call first).
// - An update without a title or name keeps the established ones. Input comes from rawInput whenever it
//   arrives (claude-agent-acp 0.23.1 sends `rawInput: {}` on tool_call and the real input only later).
// - `content` REPLACES the collection; Gemini CLI 0.61.0 puts the call's description in the opening
//   frame and sends `content: []` on completion: that description is not output.
// - codex-acp 2.6.0 sends a command's output only as appends in `_meta.terminal_output_delta` (or the
//   Zed convention `_meta.terminal_output`), `{data, terminal_id}` with plain text, and its exit code in
//   `_meta.terminal_exit.exit_code` (docs/architecture/acp.md, "codex-acp 2.x").
import {
  type EventPayload,
  type FileChange,
  type ItemStatus,
  isRecord,
  isSerialisable,
  type PermissionOption as ReinsPermissionOption,
  type ToolKind as ReinsToolKind,
  type ToolCallItem,
  type ToolInfo,
  truncatedValue,
} from '@reins/core';
import type { TranslateState } from './translate-state.js';

/** A foreign value for a payload field: itself, or a marker when it nests too deep to be sent. */
export const sendable = (value: unknown): unknown =>
  isSerialisable(value) ? value : truncatedValue('the value nests too deep to be sent');

/** A JSON text of a value, or undefined when it cannot be written (too deep, a cycle). */
export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** ACP tool kind -> Reins tool kind; a kind the pinned SDK does not declare is `other`. */
export function toolKindOf(kind: unknown): ReinsToolKind {
  switch (kind) {
    case 'execute':
      return 'command';
    case 'edit':
    case 'delete':
    case 'move':
      return 'file_change';
    // fetch is network access (claude-agent-acp files WebFetch and WebSearch under it): web_search.
    case 'fetch':
      return 'web_search';
    // search is a LOCAL file search (Grep/Glob, Gemini's search_file_content), not the web: other.
    default:
      return 'other';
  }
}

/** The tool's own name: ACP `name`, else the agent's _meta tool name. */
function toolNameOf(update: Record<string, unknown>): string | undefined {
  if (typeof update.name === 'string' && update.name) return update.name;
  const meta = isRecord(update._meta) ? update._meta : undefined;
  if (meta) {
    // claude-agent-acp 0.23.1: _meta.claudeCode.toolName; Qwen Code 0.24.4: _meta.toolName.
    const claude = isRecord(meta.claudeCode) ? meta.claudeCode.toolName : undefined;
    if (typeof claude === 'string' && claude) return claude;
    if (typeof meta.toolName === 'string' && meta.toolName) return meta.toolName;
  }
  return undefined;
}

function toolStatusOf(status: unknown): ItemStatus | undefined {
  switch (status) {
    case 'pending':
    case 'in_progress':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    default:
      return undefined;
  }
}

function hasInput(raw: unknown): boolean {
  if (raw === undefined || raw === null) return false;
  if (isRecord(raw)) return Object.keys(raw).length > 0;
  return true;
}

/** A plain unified diff of two texts (whole-file hunk): readable, and exact about what changed. */
export function wholeFileDiff(path: string, oldText: string | null | undefined, newText: string): string {
  const split = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const before = split(typeof oldText === 'string' ? oldText : '');
  const after = split(newText);
  const header = [`--- ${typeof oldText !== 'string' ? '/dev/null' : `a/${path}`}`, `+++ b/${path}`];
  const hunk = `@@ -${before.length === 0 ? 0 : 1},${before.length} +${after.length === 0 ? 0 : 1},${after.length} @@`;
  return [...header, hunk, ...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)].join('\n');
}

/** The text of a content block a message or a tool's content carries (text, or a resource link's uri). */
export function blockText(content: unknown): string | undefined {
  if (!isRecord(content)) return undefined;
  if (content.type === 'text') return typeof content.text === 'string' ? content.text : undefined;
  if (content.type === 'resource_link') return typeof content.uri === 'string' ? content.uri : undefined;
  return undefined;
}

function contentParts(content: readonly unknown[]): { text: string; changes: FileChange[] } {
  const texts: string[] = [];
  const changes: FileChange[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'content') {
      const text = blockText(part.content);
      if (text !== undefined) texts.push(text);
    } else if (part.type === 'diff' && typeof part.path === 'string' && typeof part.newText === 'string') {
      const oldText = typeof part.oldText === 'string' ? part.oldText : null;
      changes.push({
        path: part.path,
        kind: oldText === null ? 'add' : 'update',
        diff: wholeFileDiff(part.path, oldText, part.newText),
      });
    }
    // 'terminal' content points at a client terminal; Reins offers none, so it stays in structured output.
  }
  return { text: texts.join('\n'), changes };
}

/** Command output appended through `_meta` (codex-acp 2.x) and the exit code it reports there. */
function terminalMetaOf(meta: unknown): { output?: string; exitCode?: number } {
  if (!isRecord(meta)) return {};
  const chunk = isRecord(meta.terminal_output_delta)
    ? meta.terminal_output_delta
    : isRecord(meta.terminal_output)
      ? meta.terminal_output
      : undefined;
  const exit = isRecord(meta.terminal_exit) ? meta.terminal_exit : undefined;
  return {
    ...(typeof chunk?.data === 'string' && chunk.data !== '' ? { output: chunk.data } : {}),
    ...(Number.isSafeInteger(exit?.exit_code) ? { exitCode: exit?.exit_code as number } : {}),
  };
}

function exitCodeOf(rawOutput: unknown): number | undefined {
  if (!isRecord(rawOutput)) return undefined;
  const candidates = [
    rawOutput.exitCode,
    rawOutput.exit_code,
    // OpenCode 1.18.33: rawOutput.metadata.exit
    isRecord(rawOutput.metadata) ? rawOutput.metadata.exit : undefined,
  ];
  for (const value of candidates) if (typeof value === 'number' && Number.isInteger(value)) return value;
  return undefined;
}

function toolItemId(state: TranslateState, toolCallId: string): string {
  let id = toolCallId;
  for (let n = 2; state.usedIds.has(id); n++) id = `${toolCallId}#${n}`;
  state.usedIds.add(id);
  return id;
}

function locationChanges(kind: unknown, locations: unknown): FileChange[] | undefined {
  if ((kind !== 'delete' && kind !== 'move') || !Array.isArray(locations)) return undefined;
  const paths = locations.map((l) => (isRecord(l) ? l.path : undefined)).filter((p) => typeof p === 'string');
  if (paths.length === 0) return undefined;
  return kind === 'move' && paths.length >= 2
    ? [{ path: paths[0] as string, kind: 'move', movePath: paths[1] as string }]
    : paths.map((path) => ({ path: path as string, kind: kind === 'move' ? 'move' : 'delete' }));
}

/**
 * Opens or updates the tool_call item for one tool_call / tool_call_update / permission toolCall.
 * `closeText` completes an open text item first (the caller's state). Returns the payloads to emit.
 */
export function toolUpdate(
  state: TranslateState,
  update: Record<string, unknown>,
  closeText: () => EventPayload[],
  fromPermission = false,
): EventPayload[] {
  if (typeof update.toolCallId !== 'string') return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  const toolCallId = update.toolCallId;
  const out: EventPayload[] = [];
  let tool = state.tools.get(toolCallId);
  if (tool?.settled) {
    // A late update for a settled call (some agents repeat the final frame): nothing new to say.
    return [{ type: 'passthrough', frame: update }];
  }
  const kind = typeof update.kind === 'string' ? update.kind : undefined;
  const title = typeof update.title === 'string' && update.title ? update.title : undefined;
  const name = toolNameOf(update);
  const status = fromPermission ? undefined : toolStatusOf(update.status);
  const parts = Array.isArray(update.content) ? contentParts(update.content) : undefined;

  if (!tool) {
    out.push(...closeText());
    const idName = state.options.toolNameFromId?.(toolCallId);
    const info: ToolInfo = { kind: toolKindOf(kind), name: name ?? idName ?? title ?? kind ?? 'tool' };
    if (title) info.title = title;
    const item: ToolCallItem = {
      kind: 'tool_call',
      id: toolItemId(state, toolCallId),
      status: 'running',
      tool: info,
      input: hasInput(update.rawInput) ? sendable(update.rawInput) : {},
    };
    tool = { item, outputText: '', settled: false };
    state.tools.set(toolCallId, tool);
    out.push({ type: 'item.started', item: { ...item, tool: { ...info } } });
  } else {
    const info = tool.item.tool;
    // The established name stays; a real name only replaces a placeholder taken from the title or kind.
    const placeholder = info.name === info.title || info.name === 'tool' || info.name === kind;
    if (name && placeholder) info.name = name;
    if (kind) info.kind = toolKindOf(kind);
    if (title) info.title = title;
    if (hasInput(update.rawInput)) {
      const before = jsonText(tool.item.input);
      tool.item.input = sendable(update.rawInput);
      const after = jsonText(tool.item.input);
      if (after !== undefined && after !== before) {
        out.push({ type: 'item.delta', itemId: tool.item.id, kind: 'tool_input', text: after });
      }
    }
  }
  const item = tool.item;
  const terminal = terminalMetaOf(update._meta);
  if (terminal.output) {
    out.push({ type: 'item.delta', itemId: item.id, kind: 'tool_output', text: terminal.output });
    tool.outputText += terminal.output;
    item.output = { ...item.output, text: tool.outputText };
  }
  if (terminal.exitCode !== undefined) item.exitCode = terminal.exitCode;
  if (parts) {
    if (!parts.text && tool.outputText) {
      tool.outputText = '';
      const { text: _dropped, ...rest } = item.output ?? {};
      if (Object.keys(rest).length > 0) item.output = rest;
      else delete item.output;
    }
    if (parts.text) {
      if (parts.text.startsWith(tool.outputText) && parts.text.length > tool.outputText.length) {
        out.push({
          type: 'item.delta',
          itemId: item.id,
          kind: 'tool_output',
          text: parts.text.slice(tool.outputText.length),
        });
      }
      tool.outputText = parts.text;
      item.output = { ...item.output, text: parts.text };
    }
    if (parts.changes.length > 0) item.changes = parts.changes;
  }
  if (update.rawOutput !== undefined && update.rawOutput !== null) {
    item.output = { ...item.output, structured: sendable(update.rawOutput) };
    const exitCode = exitCodeOf(update.rawOutput);
    if (exitCode !== undefined) item.exitCode = exitCode;
  }
  if (!item.changes) {
    const changes = locationChanges(kind, update.locations);
    if (changes) item.changes = changes;
  }
  if (state.options.commandFromTitle && item.tool.kind === 'command' && !hasInput(item.input) && item.tool.title) {
    item.input = { command: item.tool.title };
  }
  if (status === 'completed' || status === 'failed') {
    item.status = status;
    tool.settled = true;
    out.push({ type: 'item.completed', item: { ...item, tool: { ...item.tool } } });
  }
  return out;
}

const OPTION_KINDS = new Set(['allow_once', 'allow_always', 'reject_once', 'reject_always']);

/** The permission options Reins can offer: id, a kind ACP declares, and a label; the rest stay native. */
export function permissionOptions(options: readonly unknown[]): ReinsPermissionOption[] {
  return options.flatMap((option) =>
    isRecord(option) &&
    typeof option.optionId === 'string' &&
    typeof option.kind === 'string' &&
    OPTION_KINDS.has(option.kind) &&
    typeof option.name === 'string'
      ? [{ id: option.optionId, kind: option.kind as ReinsPermissionOption['kind'], label: option.name }]
      : [],
  );
}

/** The option that carries out a decision: the caller's pick, else the first of the right kind. */
export function pickPermissionOption(
  options: readonly unknown[],
  decision: { behavior: 'allow' | 'deny'; scope?: 'once' | 'session'; optionId?: string },
): string | undefined {
  const usable = permissionOptions(options);
  if (decision.optionId && usable.some((option) => option.id === decision.optionId)) return decision.optionId;
  const order =
    decision.behavior === 'allow'
      ? decision.scope === 'session'
        ? ['allow_always', 'allow_once']
        : ['allow_once', 'allow_always']
      : decision.scope === 'session'
        ? ['reject_always', 'reject_once']
        : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const found = usable.find((option) => option.kind === kind);
    if (found) return found.id;
  }
  return undefined;
}

/** A permission request -> the tool item (when the agent never announced it) and permission.requested. */
export function permissionPayloads(
  state: TranslateState,
  requestId: string,
  toolCall: Record<string, unknown>,
  options: readonly unknown[],
  closeText: () => EventPayload[],
): { payloads: EventPayload[]; itemId: string | undefined } {
  const payloads: EventPayload[] = [];
  const toolCallId = typeof toolCall.toolCallId === 'string' ? toolCall.toolCallId : undefined;
  let itemId: string | undefined;
  let tool: ToolInfo = { kind: toolKindOf(toolCall.kind), name: toolNameOf(toolCall) ?? 'tool' };
  let input: unknown = toolCall.rawInput === undefined ? undefined : sendable(toolCall.rawInput);
  if (toolCallId) {
    payloads.push(...toolUpdate(state, toolCall, closeText, true));
    const known = state.tools.get(toolCallId);
    if (known) {
      itemId = known.item.id;
      tool = { ...known.item.tool };
      input = known.item.input;
    }
  }
  payloads.push({
    type: 'permission.requested',
    requestId,
    tool,
    ...(input !== undefined ? { input } : {}),
    ...(itemId ? { itemId } : {}),
    options: permissionOptions(options),
  });
  return { payloads, itemId };
}
