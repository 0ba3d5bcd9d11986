// Pure: Reins items -> the Codex ThreadItems closest to them. agent_message -> agentMessage,
// reasoning -> reasoning, tool calls by kind -> commandExecution / fileChange / mcpToolCall /
// webSearch / collabAgentToolCall (subagent) / dynamicToolCall (anything else), plan -> plan,
// compaction -> contextCompaction, user_message (and a turn's input) -> userMessage.
import {
  type FileChange,
  type Item,
  type ItemStatus,
  isRecord,
  type PlanEntry,
  type ToolCallItem,
  type TurnInput,
  type UserMessageItem,
} from '@reins/core';
import { boundedJson } from '../json.js';
import type { FileUpdateChange, ThreadItem, ThreadItemOf, TurnPlanStep, UserInput } from './wire.js';

export interface ItemContext {
  threadId: string;
  /** The thread's cwd, for a command that does not name its own. */
  cwd: string;
  /** Output a tool streamed, for a completed tool item that carries none. */
  streamedOutput?: string;
}

/** Where a subagent's items go: a child thread named after the tool call that spawned it. */
export function childThreadId(threadId: string, parentItemId: string): string {
  return `${threadId}:subagent:${parentItemId}`;
}

function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

function commandOf(item: ToolCallItem): string {
  const input = item.input;
  for (const key of ['command', 'cmd']) {
    const value = isRecord(input) ? input[key] : undefined;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value.join(' ');
  }
  return item.tool.title ?? item.tool.name;
}

function outputText(item: ToolCallItem, streamed: string | undefined): string | null {
  return item.output?.text ?? (streamed ? streamed : null);
}

/** Command and file statuses (Codex has no cancelled one: a tool that did not run to the end failed). */
function toolStatusOf(status: ItemStatus): 'inProgress' | 'completed' | 'failed' | 'declined' {
  if (status === 'running') return 'inProgress';
  if (status === 'completed' || status === 'declined') return status;
  return 'failed';
}

/** MCP and dynamic tool statuses: no declined either. */
function callStatusOf(status: ItemStatus): 'inProgress' | 'completed' | 'failed' {
  const mapped = toolStatusOf(status);
  return mapped === 'declined' ? 'failed' : mapped;
}

function fileChangeOf(change: FileChange): FileUpdateChange {
  // Codex requires a diff string; an empty one means "no diff reported" (its clients read it so).
  const diff = change.diff ?? '';
  switch (change.kind) {
    case 'add':
      return { path: change.path, kind: { type: 'add' }, diff };
    case 'delete':
      return { path: change.path, kind: { type: 'delete' }, diff };
    case 'move':
      return { path: change.path, kind: { type: 'update', move_path: change.movePath ?? null }, diff };
    default:
      return { path: change.path, kind: { type: 'update', move_path: null }, diff };
  }
}

/** `mcp__server__tool` (the name Claude Code and the Reins Codex adapter give MCP tools) -> its parts. */
function mcpNameOf(name: string): { server: string; tool: string } {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  // Without that shape the server is not known: left empty rather than guessed.
  return match ? { server: match[1] as string, tool: match[2] as string } : { server: '', tool: name };
}

function collabStatusOf(status: ItemStatus): ThreadItemOf<'collabAgentToolCall'>['status'] {
  return status === 'cancelled' ? 'interrupted' : callStatusOf(status);
}

function agentStatusOf(status: ItemStatus): 'completed' | 'errored' | 'interrupted' | 'running' {
  if (status === 'running' || status === 'completed') return status;
  return status === 'cancelled' ? 'interrupted' : 'errored';
}

function mcpItemOf(item: ToolCallItem, text: string | null): ThreadItem {
  const { server, tool } = mcpNameOf(item.tool.name);
  const failed = item.status === 'failed' || item.status === 'declined' || item.status === 'cancelled';
  const ended = item.status !== 'running';
  const structured = item.output?.structured;
  return {
    type: 'mcpToolCall',
    id: item.id,
    server,
    // Codex 0.171.0 names the environment an MCP server runs in; a Reins harness has none to name.
    environmentId: null,
    tool,
    status: callStatusOf(item.status),
    arguments: boundedJson(item.input),
    appContext: null,
    mcpAppUi: null,
    pluginId: null,
    readOnlyHint: null,
    result:
      ended && !failed && (text !== null || structured !== undefined)
        ? {
            content: text !== null ? [{ type: 'text', text }] : [],
            structuredContent: structured === undefined ? null : boundedJson(structured),
            _meta: null,
          }
        : null,
    error: ended && failed ? { message: text ?? `The tool call ended ${item.status}.` } : null,
    durationMs: null,
  };
}

function toolItemOf(item: ToolCallItem, context: ItemContext): ThreadItem {
  const id = item.id;
  const text = outputText(item, context.streamedOutput);
  switch (item.tool.kind) {
    case 'command':
      return {
        type: 'commandExecution',
        id,
        pluginId: null,
        scriptPath: null,
        command: commandOf(item),
        cwd: stringField(item.input, 'cwd') ?? context.cwd,
        processId: null,
        source: 'agent',
        status: toolStatusOf(item.status),
        commandActions: [],
        aggregatedOutput: text,
        exitCode: item.exitCode ?? null,
        durationMs: null,
      };
    case 'file_change':
      return {
        type: 'fileChange',
        id,
        changes: (item.changes ?? []).map(fileChangeOf),
        status: toolStatusOf(item.status),
      };
    case 'mcp':
      return mcpItemOf(item, text);
    case 'web_search':
      return {
        type: 'webSearch',
        id,
        query: stringField(item.input, 'query') ?? item.tool.title ?? '',
        action: null,
        // Result shapes differ per harness; Codex's own is not what they send, so none is claimed.
        results: null,
      };
    case 'subagent': {
      const child = childThreadId(context.threadId, id);
      const ended = item.status !== 'running';
      return {
        type: 'collabAgentToolCall',
        id,
        tool: 'spawnAgent',
        status: collabStatusOf(item.status),
        senderThreadId: context.threadId,
        receiverThreadIds: [child],
        prompt: stringField(item.input, 'prompt') ?? item.tool.title ?? null,
        model: stringField(item.input, 'model') ?? null,
        reasoningEffort: null,
        // The subagent's answer has no other place on this item.
        agentsStates: ended ? { [child]: { status: agentStatusOf(item.status), message: text } } : {},
      };
    }
    default:
      return {
        type: 'dynamicToolCall',
        id,
        namespace: null,
        tool: item.tool.name,
        arguments: boundedJson(item.input),
        status: callStatusOf(item.status),
        contentItems: text !== null ? [{ type: 'inputText', text }] : null,
        success: item.status === 'completed' ? true : item.status === 'running' ? null : false,
        durationMs: null,
      };
  }
}

function imageInputOf(image: NonNullable<TurnInput['images']>[number]): UserInput | undefined {
  if (image.source === 'path' && image.path) return { type: 'localImage', path: image.path };
  if (image.source === 'data' && image.data) {
    return { type: 'image', url: `data:${image.mediaType ?? 'image/png'};base64,${image.data}` };
  }
  return undefined;
}

/** A turn's input as Codex user input parts: its text, images, and file references as mentions. */
export function userInputOf(input: TurnInput): UserInput[] {
  const content: UserInput[] = [];
  if (input.text !== '' || (!input.images?.length && !input.files?.length)) {
    content.push({ type: 'text', text: input.text, text_elements: [] });
  }
  for (const image of input.images ?? []) {
    const part = imageInputOf(image);
    if (part) content.push(part);
  }
  for (const file of input.files ?? []) {
    content.push({ type: 'mention', name: file.path.split('/').pop() || file.path, path: file.path });
  }
  return content;
}

function userMessageOf(item: UserMessageItem): ThreadItem {
  return {
    type: 'userMessage',
    id: item.id,
    clientId: item.clientMessageId ?? null,
    content: userInputOf({ text: item.text, ...(item.images ? { images: item.images } : {}) }),
  };
}

function planStatusOf(status: PlanEntry['status']): TurnPlanStep['status'] {
  return status === 'in_progress' ? 'inProgress' : status;
}

/** A plan's entries as Codex's turn plan steps. */
export function planStepsOf(entries: PlanEntry[]): TurnPlanStep[] {
  return entries.map((entry) => ({ step: entry.text, status: planStatusOf(entry.status) }));
}

/** A Reins item as the Codex ThreadItem closest to it (see the header). */
export function threadItemOf(item: Item, context: ItemContext): ThreadItem {
  switch (item.kind) {
    case 'user_message':
      return userMessageOf(item);
    case 'agent_message':
      return {
        type: 'agentMessage',
        id: item.id,
        text: item.text,
        moderation: null,
        phase: null,
        memoryCitation: null,
        delivery: null,
        questions: null,
      };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: item.id,
        summary: item.summary ? [item.summary] : [],
        content: item.text ? [item.text] : [],
      };
    case 'tool_call':
      return toolItemOf(item, context);
    case 'plan':
      return {
        type: 'plan',
        id: item.id,
        text: item.entries.map((entry) => `- [${entry.status}] ${entry.text}`).join('\n'),
      };
    default:
      return { type: 'contextCompaction', id: item.id };
  }
}

/**
 * The item with its lifecycle times. Codex clients read a text item without completedAtMs as still
 * running (the Reins Codex adapter does), so live items carry both; history has no times to give.
 */
export function timed(item: ThreadItem, startedAtMs: number | null, completedAtMs: number | null): ThreadItem {
  return Object.assign(item, { startedAtMs, completedAtMs });
}

/**
 * Whether item/completed goes out for an item Reins settled with this status: Codex never completes
 * what an interrupt cut off (cancelled), nor the text of a failed turn; its clients close those with
 * the turn (the Reins Codex adapter does exactly that).
 */
export function completesOnWire(item: Item): boolean {
  if (item.status === 'cancelled') return false;
  if (item.status === 'failed' && item.kind !== 'tool_call') return false;
  return true;
}
