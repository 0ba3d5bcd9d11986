// Codex ThreadItems as Reins items. Pure, and total over any value: a ThreadItem of a kind this Codex
// version does not declare, or with a status or patch kind it does not declare, is `unknown` (the frame
// passes through, marked so); one whose fields do not have the wire's types is `unparsable`; the kinds
// Reins deliberately has no item for are `none`. Nothing here throws on what Codex sends.
import {
  classifyUserMessage,
  type FileChange,
  type Item,
  type ItemStatus,
  isRecord,
  isSerialisable,
  type ReasoningItem,
  type ToolCallItem,
  truncatedValue,
  type UserMessageItem,
} from '@reins/core';

/** What a ThreadItem became: a Reins item, or why there is none. */
export type ItemMapping = { item: Item } | { none: 'none' | 'unknown' | 'unparsable'; detail?: string };

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A foreign value for a payload field: itself, or a marker when it nests too deep to be sent. */
export const sendable = (value: unknown): unknown =>
  isSerialisable(value) ? value : truncatedValue('the value nests too deep to be sent');

/** A short, safe description of a foreign value for a message (never serialises the whole value). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** A text field: absent or null is empty; any other non-string makes the item unparsable (undefined). */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : undefined;
}

/** The statuses of the tool items (CommandExecutionStatus, PatchApplyStatus, McpToolCallStatus, ...). */
function itemStatus(status: unknown): ItemStatus | undefined {
  switch (status) {
    case 'inProgress':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'declined':
      return 'declined';
    case 'interrupted':
      return 'cancelled';
    default:
      return undefined;
  }
}

/** Text items have no status on the wire: started means running, a completedAtMs means done. */
function lifecycleStatus(item: Record<string, unknown>): ItemStatus {
  return typeof item.completedAtMs === 'number' ? 'completed' : 'running';
}

/** A FileUpdateChange; `unknown` for a patch kind this Codex does not declare (0.169.0: add, delete, update). */
function fileChange(change: unknown): FileChange | 'unknown' | undefined {
  if (!isRecord(change) || typeof change.path !== 'string' || !isRecord(change.kind)) return undefined;
  // Built key by key (path, diff, kind, movePath): a spread copy that gains a key is slow on Node 20.
  let kind: FileChange['kind'];
  let movePath: string | undefined;
  switch (change.kind.type) {
    case 'add':
    case 'delete':
      kind = change.kind.type;
      break;
    case 'update': {
      const to = change.kind.move_path;
      if (typeof to === 'string' && to) {
        kind = 'move';
        movePath = to;
      } else kind = 'update';
      break;
    }
    default:
      return 'unknown';
  }
  const out: FileChange = { path: change.path } as FileChange;
  if (typeof change.diff === 'string' && change.diff) out.diff = change.diff;
  out.kind = kind;
  if (movePath !== undefined) out.movePath = movePath;
  return out;
}

function textOfMcpContent(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  let texts: string | undefined;
  for (const part of content) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') {
      texts = texts === undefined ? part.text : `${texts}\n${part.text}`;
    }
  }
  return texts;
}

/** The strings of a list joined by `separator` (anything else in it, or a non-list, is skipped). */
function joinStrings(value: unknown, separator: string): string {
  if (!Array.isArray(value)) return '';
  let joined: string | undefined;
  for (const part of value) {
    if (typeof part === 'string') joined = joined === undefined ? part : joined + separator + part;
  }
  return joined ?? '';
}

const NO_ITEM = new Set([
  'hookPrompt',
  'functionCallOutput',
  'subAgentActivity',
  'sleep',
  'imageGeneration',
  'enteredReviewMode',
  'exitedReviewMode',
]);

const unknown = (detail: string): ItemMapping => ({ none: 'unknown', detail });
const unparsable = (detail: string): ItemMapping => ({ none: 'unparsable', detail });

/**
 * Codex declares exitCode an i32 (ThreadItem.ts: `number | null`, ts-rs of Rust's Option<i32>, 0.169.0):
 * a value outside it (a fractional or huge number, as a broken frame may carry) is no exit code at all,
 * so it is left out rather than clamped to one the process never returned. The frame keeps the raw value.
 */
function exitCodeOf(value: unknown): number | undefined {
  return typeof value === 'number' && (value | 0) === value ? value : undefined;
}

// The items below are built key by key, in the order the spread literals of earlier versions gave them
// (kind, id, status, tool, input, output, exitCode, changes): a spread into a literal that already has
// keys copies through a slow path on Node 20, and every tool item of a turn went through it.

function commandExecution(raw: Record<string, unknown>, id: string): ItemMapping {
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  const command = str(raw.command);
  const tool: ToolCallItem['tool'] =
    command !== undefined
      ? { kind: 'command', name: 'exec_command', title: command }
      : { kind: 'command', name: 'exec_command' };
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status,
    tool,
    input: sendable({ command: raw.command, cwd: raw.cwd }),
  };
  const output = str(raw.aggregatedOutput);
  if (output !== undefined || status !== 'running') {
    const structured = sendable({
      commandActions: raw.commandActions,
      source: raw.source,
      processId: raw.processId,
      durationMs: raw.durationMs,
    });
    item.output = output !== undefined ? { text: output, structured } : { structured };
  }
  const exitCode = exitCodeOf(raw.exitCode);
  if (exitCode !== undefined) item.exitCode = exitCode;
  return { item };
}

function fileChangeItem(raw: Record<string, unknown>, id: string): ItemMapping {
  const changes: FileChange[] = [];
  let unreadable = false;
  for (const change of list(raw.changes)) {
    const mapped = fileChange(change);
    if (mapped === 'unknown') return unknown('fileChange patch kind');
    if (mapped === undefined) unreadable = true;
    else changes.push(mapped);
  }
  if (unreadable) return unparsable('fileChange changes');
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  return {
    item: {
      kind: 'tool_call',
      id,
      status,
      tool: { kind: 'file_change', name: 'apply_patch' },
      input: sendable({ changes: raw.changes }),
      changes,
    },
  };
}

function mcpToolCall(raw: Record<string, unknown>, id: string): ItemMapping {
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  const server = str(raw.server);
  const name = str(raw.tool);
  if (server === undefined || name === undefined) return unparsable(`${raw.type} fields`);
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status,
    tool: { kind: 'mcp', name: `mcp__${server}__${name}`, title: `${server}: ${name}` },
    input: sendable(raw.arguments),
  };
  const error = isRecord(raw.error) ? raw.error : undefined;
  const result = isRecord(raw.result) ? raw.result : undefined;
  if (result || error) {
    const output = error ? str(error.message) : result ? textOfMcpContent(result.content) : undefined;
    const structured = sendable(result ?? error);
    item.output = output !== undefined ? { text: output, structured } : { structured };
  }
  return { item };
}

function dynamicToolCall(raw: Record<string, unknown>, id: string): ItemMapping {
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  const name = str(raw.tool);
  if (name === undefined) return unparsable(`${raw.type} fields`);
  const namespace = str(raw.namespace);
  const item: ToolCallItem = {
    kind: 'tool_call',
    id,
    status,
    tool: { kind: 'other', name: namespace ? `${namespace}.${name}` : name },
    input: sendable(raw.arguments),
  };
  if (raw.contentItems !== undefined && raw.contentItems !== null) {
    item.output = { structured: sendable(raw.contentItems) };
  }
  return { item };
}

function collabAgentToolCall(raw: Record<string, unknown>, id: string): ItemMapping {
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  const name = str(raw.tool);
  if (name === undefined) return unparsable(`${raw.type} fields`);
  const prompt = str(raw.prompt);
  return {
    item: {
      kind: 'tool_call',
      id,
      status,
      tool: prompt ? { kind: 'subagent', name, title: prompt } : { kind: 'subagent', name },
      input: sendable({
        prompt: raw.prompt,
        model: raw.model,
        reasoningEffort: raw.reasoningEffort,
        receiverThreadIds: raw.receiverThreadIds,
      }),
      output: {
        structured: sendable({ agentsStates: raw.agentsStates, receiverThreadIds: raw.receiverThreadIds }),
      },
    },
  };
}

function userMessage(raw: Record<string, unknown>, id: string): ItemMapping {
  let text = '';
  let images: Array<{ source: 'path'; path: string }> | undefined;
  if (Array.isArray(raw.content)) {
    for (const part of raw.content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string' && part.text !== '') {
        text = text === '' ? part.text : `${text}\n${part.text}`;
      } else if (part.type === 'localImage' && typeof part.path === 'string') {
        images ??= [];
        images.push({ source: 'path', path: part.path });
      }
    }
  }
  const item: UserMessageItem = { kind: 'user_message', id, status: lifecycleStatus(raw), text };
  if (images !== undefined) item.images = images;
  // Codex's own user items (echoes, thread/read history) may carry its injected envelopes: core's
  // system-text registry classifies them. A message comes twice (item/started, item/completed) with
  // the same text: the last text found to be the user's own is remembered, not classified again.
  if (text === lastUserOwnText) return { item };
  const classified = classifyUserMessage(item);
  if (classified === item) lastUserOwnText = text;
  return { item: classified };
}

/** The last user message text the system-text registry left as the user's own (see userMessage). */
let lastUserOwnText: string | undefined;

/** One ThreadItem; `idPrefix` keeps a subagent's item ids apart from the parent thread's. */
export function mapThreadItem(raw: unknown, idPrefix = ''): ItemMapping {
  if (!isRecord(raw) || typeof raw.type !== 'string' || typeof raw.id !== 'string') {
    return unparsable('a thread item without a string type and id');
  }
  // No concatenation for the session's own thread (the common case): '' + id still costs a string add.
  const id = idPrefix === '' ? raw.id : idPrefix + raw.id;
  switch (raw.type) {
    case 'userMessage':
      return userMessage(raw, id);
    case 'agentMessage': {
      const body = text(raw.text);
      if (body === undefined) return unparsable('agentMessage text');
      return { item: { kind: 'agent_message', id, status: lifecycleStatus(raw), text: body } };
    }
    case 'reasoning': {
      const summary = joinStrings(raw.summary, '\n\n');
      const item: ReasoningItem = {
        kind: 'reasoning',
        id,
        status: lifecycleStatus(raw),
        text: joinStrings(raw.content, '\n\n'),
      };
      if (summary) item.summary = summary;
      return { item };
    }
    case 'commandExecution':
      return commandExecution(raw, id);
    case 'fileChange':
      return fileChangeItem(raw, id);
    case 'mcpToolCall':
      return mcpToolCall(raw, id);
    case 'dynamicToolCall':
      return dynamicToolCall(raw, id);
    case 'webSearch': {
      const query = str(raw.query);
      const item: ToolCallItem = {
        kind: 'tool_call',
        id,
        // A search has no status on the wire; its completed notification carries the results.
        status: lifecycleStatus(raw),
        tool: query
          ? { kind: 'web_search', name: 'web_search', title: query }
          : { kind: 'web_search', name: 'web_search' },
        input: sendable({ query: raw.query, action: raw.action }),
      };
      if (raw.results !== undefined && raw.results !== null) item.output = { structured: sendable(raw.results) };
      return { item };
    }
    case 'collabAgentToolCall':
      return collabAgentToolCall(raw, id);
    case 'plan': {
      const body = text(raw.text);
      if (body === undefined) return unparsable('plan text');
      return { item: { kind: 'plan', id, status: lifecycleStatus(raw), entries: [{ text: body, status: 'pending' }] } };
    }
    case 'contextCompaction':
      // Codex reports no token counts for a compaction; absent, not zero.
      return { item: { kind: 'compaction', id, status: lifecycleStatus(raw) } };
    case 'imageView': {
      const path = str(raw.path);
      return {
        item: {
          kind: 'tool_call',
          id,
          status: lifecycleStatus(raw),
          tool:
            path !== undefined
              ? { kind: 'other', name: 'view_image', title: path }
              : { kind: 'other', name: 'view_image' },
          input: sendable({ path: raw.path }),
        },
      };
    }
    default:
      return NO_ITEM.has(raw.type) ? { none: 'none' } : unknown(`thread item type ${raw.type}`);
  }
}

/**
 * A Codex ThreadItem as a Reins item; undefined for kinds Reins has no item for and for items it cannot
 * read (the caller passes those through). `idPrefix` keeps a subagent's item ids apart.
 */
export function toItem(item: unknown, idPrefix = ''): Item | undefined {
  const mapped = mapThreadItem(item, idPrefix);
  return 'item' in mapped ? mapped.item : undefined;
}
