// Pi messages (pi-ai 0.73.1): the value and content readers the event translation shares, provider errors
// read from Pi's error text, and a stored conversation (get_messages) as items. Pure and total over any
// value: a field without the type Pi's .d.ts gives it is left out, never guessed.
import {
  classifyUserMessage,
  type ErrorInfo,
  type Item,
  isRecord,
  isSerialisable,
  type ToolCallItem,
  type ToolKind,
  truncatedValue,
} from '@reins/core';
import { isRetryableKind, type ProviderWords, providerKindOf } from '../runtime/chassis/provider-failure.js';

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const index = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
/** A count Pi reported; anything else (absent, wrong type, negative) is absent, never zero. */
export const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** A foreign value for a payload field: itself, or a marker when it nests too deep to be sent. */
export const sendable = (value: unknown): unknown =>
  isSerialisable(value) ? value : truncatedValue('the value nests too deep to be sent');

/** A number or word for a message; never the text of an object. */
export function shown(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' ? String(value).slice(0, 40) : '?';
}

/** Pi 0.73.1 built-in tools: bash runs commands, write/edit change files, read/grep/find/ls only look. */
export function piToolKind(name: string): ToolKind {
  if (name === 'bash') return 'command';
  if (name === 'write' || name === 'edit') return 'file_change';
  return 'other';
}

/** The text of a user message (a string, or its text blocks). */
export function userText(message: unknown): string {
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  // A loop, not filter/map/join: no arrays or closures per user message (the bench's translate figure).
  let text = '';
  for (const block of content)
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  return text;
}

/** The text blocks of a tool result joined; undefined when it has none. */
export function resultText(result: unknown): string | undefined {
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const texts = result.content
    .filter((block) => isRecord(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => (block as { text: string }).text);
  return texts.length > 0 ? texts.join('') : undefined;
}

/** The files a write or edit changed (edit: with Pi's diff); undefined for other tools or a failure. */
export function fileChanges(name: string, input: unknown, result: unknown, isError: boolean): ToolCallItem['changes'] {
  if (isError || !isRecord(input) || typeof input.path !== 'string') return undefined;
  if (name === 'write') return [{ path: input.path, kind: 'add' }];
  if (name === 'edit') {
    const details = isRecord(result) && isRecord(result.details) ? result.details : undefined;
    const diff = typeof details?.diff === 'string' ? details.diff : undefined;
    return [{ path: input.path, kind: 'update', ...(diff !== undefined ? { diff } : {}) }];
  }
  return undefined;
}

// ---- errors ----
/**
 * Pi 0.73.1 reports provider failures only as text (errorMessage, e.g. "500 fake server error 500" or
 * "429 ..."); there is no structured status field, so the status is the text's leading HTTP status
 * and the kind comes from the shared rules (runtime/chassis/provider-failure.ts) with Pi's own words.
 * The error keeps Pi's text as its message and stays provider_error. Unrecognized text: kind `unknown`.
 */
export function piProviderError(message: unknown): ErrorInfo {
  const text = typeof message === 'string' && message ? message : 'The model provider reported an error.';
  const leading = /^\s*(\d{3})\b/.exec(text)?.[1];
  const status = leading ? Number(leading) : undefined;
  const kind = providerKindOf(status, text, PI_WORDS);
  return {
    code: 'provider_error',
    message: text,
    retryable: isRetryableKind(kind),
    data: { kind, ...(status !== undefined ? { status } : {}) },
  };
}

/** Pi's words beside the shared ones (pi-ai's messages for a full context, a failing or unreachable server). */
const PI_WORDS: ProviderWords = {
  context_window_exceeded: /context.{0,20}(length|window|overflow)|prompt is too long/i,
  server_error: /server.?error|service.?unavailable/i,
  connection_failed: /connection|network/i,
};

// ---- history ----
/** Items for a stored conversation (get_messages), in order; every item completed and marked replayed. */
export function piMessagesToItems(messages: readonly unknown[]): Item[] {
  const items: Item[] = [];
  const tools = new Map<string, ToolCallItem>();
  (Array.isArray(messages) ? messages : []).forEach((message, index) => {
    if (!isRecord(message)) return;
    if (message.role === 'user') {
      items.push(
        classifyUserMessage({
          kind: 'user_message',
          id: `pi-history-${index}`,
          status: 'completed',
          text: userText(message),
          replay: true,
        }),
      );
      return;
    }
    if (message.role === 'assistant') {
      const content = Array.isArray(message.content) ? message.content : [];
      content.forEach((block, blockIndex) => {
        if (!isRecord(block)) return;
        const id = `pi-history-${index}-${blockIndex}`;
        if (block.type === 'text' && typeof block.text === 'string') {
          items.push({ kind: 'agent_message', id, status: 'completed', text: block.text });
        } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
          items.push({ kind: 'reasoning', id, status: 'completed', text: block.thinking });
        } else if (block.type === 'toolCall' && typeof block.id === 'string' && !tools.has(block.id)) {
          const name = typeof block.name === 'string' ? block.name : 'tool';
          const item: ToolCallItem = {
            kind: 'tool_call',
            id: block.id,
            // Until its result is seen; a call without a result did not complete.
            status: 'cancelled',
            tool: { kind: piToolKind(name), name },
            input: block.arguments ?? {},
          };
          tools.set(block.id, item);
          items.push(item);
        }
      });
      return;
    }
    if (message.role === 'toolResult' && typeof message.toolCallId === 'string') {
      const item = tools.get(message.toolCallId);
      if (!item) return;
      const text = resultText(message);
      item.status = message.isError === true ? 'failed' : 'completed';
      if (text !== undefined) item.output = { text };
      const changes = fileChanges(item.tool.name, item.input, message, message.isError === true);
      if (changes) item.changes = changes;
    }
  });
  return items;
}
