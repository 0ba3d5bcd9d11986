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
  type ToolCallItem,
  truncatedValue,
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
  const texts = list(content)
    .map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : undefined))
    .filter((part): part is string => part !== undefined);
  return texts.length > 0 ? texts.join('\n') : undefined;
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

/** A tool item with a declared status, or why not. */
function tool(
  raw: Record<string, unknown>,
  build: (status: ItemStatus) => Omit<ToolCallItem, 'kind' | 'id' | 'status'> | undefined,
  id: string,
): ItemMapping {
  const status = itemStatus(raw.status);
  if (status === undefined) return unknown(`${raw.type} status ${describeValue(raw.status)}`);
  const rest = build(status);
  return rest ? { item: { kind: 'tool_call', id, status, ...rest } } : unparsable(`${raw.type} fields`);
}

/** One ThreadItem; `idPrefix` keeps a subagent's item ids apart from the parent thread's. */
export function mapThreadItem(raw: unknown, idPrefix = ''): ItemMapping {
  if (!isRecord(raw) || typeof raw.type !== 'string' || typeof raw.id !== 'string') {
    return unparsable('a thread item without a string type and id');
  }
  const id = idPrefix + raw.id;
  switch (raw.type) {
    case 'userMessage': {
      const parts = list(raw.content).filter(isRecord);
      const texts = parts.map((part) => (part.type === 'text' ? str(part.text) : undefined));
      const images = parts.flatMap((part) =>
        part.type === 'localImage' && typeof part.path === 'string'
          ? [{ source: 'path' as const, path: part.path }]
          : [],
      );
      // Codex's own user items (echoes, thread/read history) may carry its injected envelopes:
      // core's system-text registry classifies them.
      return {
        item: classifyUserMessage({
          kind: 'user_message',
          id,
          status: lifecycleStatus(raw),
          text: texts.filter((part): part is string => part !== undefined && part !== '').join('\n'),
          ...(images.length > 0 ? { images } : {}),
        }),
      };
    }
    case 'agentMessage': {
      const body = text(raw.text);
      if (body === undefined) return unparsable('agentMessage text');
      return { item: { kind: 'agent_message', id, status: lifecycleStatus(raw), text: body } };
    }
    case 'reasoning': {
      const strings = (value: unknown) => list(value).filter((part): part is string => typeof part === 'string');
      const summary = strings(raw.summary).join('\n\n');
      return {
        item: {
          kind: 'reasoning',
          id,
          status: lifecycleStatus(raw),
          text: strings(raw.content).join('\n\n'),
          ...(summary ? { summary } : {}),
        },
      };
    }
    case 'commandExecution':
      return tool(
        raw,
        (status) => {
          const command = str(raw.command);
          const output = str(raw.aggregatedOutput);
          return {
            tool: { kind: 'command', name: 'exec_command', ...(command !== undefined ? { title: command } : {}) },
            input: sendable({ command: raw.command, cwd: raw.cwd }),
            ...(output !== undefined || status !== 'running'
              ? {
                  output: {
                    ...(output !== undefined ? { text: output } : {}),
                    structured: sendable({
                      commandActions: raw.commandActions,
                      source: raw.source,
                      processId: raw.processId,
                      durationMs: raw.durationMs,
                    }),
                  },
                }
              : {}),
            ...(Number.isInteger(raw.exitCode) ? { exitCode: raw.exitCode as number } : {}),
          };
        },
        id,
      );
    case 'fileChange': {
      const changes = list(raw.changes).map(fileChange);
      if (changes.includes('unknown')) return unknown('fileChange patch kind');
      if (changes.includes(undefined)) return unparsable('fileChange changes');
      return tool(
        raw,
        () => ({
          tool: { kind: 'file_change', name: 'apply_patch' },
          input: sendable({ changes: raw.changes }),
          changes: changes as FileChange[],
        }),
        id,
      );
    }
    case 'mcpToolCall':
      return tool(
        raw,
        () => {
          const server = str(raw.server);
          const name = str(raw.tool);
          if (server === undefined || name === undefined) return undefined;
          const error = isRecord(raw.error) ? raw.error : undefined;
          const result = isRecord(raw.result) ? raw.result : undefined;
          const output = error ? str(error.message) : result ? textOfMcpContent(result.content) : undefined;
          return {
            tool: { kind: 'mcp', name: `mcp__${server}__${name}`, title: `${server}: ${name}` },
            input: sendable(raw.arguments),
            ...(result || error
              ? { output: { ...(output !== undefined ? { text: output } : {}), structured: sendable(result ?? error) } }
              : {}),
          };
        },
        id,
      );
    case 'dynamicToolCall':
      return tool(
        raw,
        () => {
          const name = str(raw.tool);
          if (name === undefined) return undefined;
          const namespace = str(raw.namespace);
          return {
            tool: { kind: 'other', name: namespace ? `${namespace}.${name}` : name },
            input: sendable(raw.arguments),
            ...(raw.contentItems !== undefined && raw.contentItems !== null
              ? { output: { structured: sendable(raw.contentItems) } }
              : {}),
          };
        },
        id,
      );
    case 'webSearch': {
      const query = str(raw.query);
      return {
        item: {
          kind: 'tool_call',
          id,
          // A search has no status on the wire; its completed notification carries the results.
          status: lifecycleStatus(raw),
          tool: { kind: 'web_search', name: 'web_search', ...(query ? { title: query } : {}) },
          input: sendable({ query: raw.query, action: raw.action }),
          ...(raw.results !== undefined && raw.results !== null
            ? { output: { structured: sendable(raw.results) } }
            : {}),
        },
      };
    }
    case 'collabAgentToolCall':
      return tool(
        raw,
        () => {
          const name = str(raw.tool);
          if (name === undefined) return undefined;
          const prompt = str(raw.prompt);
          return {
            tool: { kind: 'subagent', name, ...(prompt ? { title: prompt } : {}) },
            input: sendable({
              prompt: raw.prompt,
              model: raw.model,
              reasoningEffort: raw.reasoningEffort,
              receiverThreadIds: raw.receiverThreadIds,
            }),
            output: {
              structured: sendable({ agentsStates: raw.agentsStates, receiverThreadIds: raw.receiverThreadIds }),
            },
          };
        },
        id,
      );
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
          tool: { kind: 'other', name: 'view_image', ...(path !== undefined ? { title: path } : {}) },
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
