// ACP message chunks (user, agent, thought) as text items: one item per run of chunks of one kind (and one
// messageId), replayed history classified as machinery or user text, status lines an agent sends as text
// taken out (see TranslateOptions.statusChunk). Pure.
import {
  classifyUserMessage,
  classifyUserText,
  type EventPayload,
  type Item,
  type ItemStatus,
  isRecord,
} from '@reins/core';
import { blockText } from './tool-calls.js';
import { freshId, type OpenText, type TextKind, type TranslateState } from './translate-state.js';

/** Completes the open text item, if any. */
export function closeText(state: TranslateState, status: ItemStatus = 'completed'): EventPayload[] {
  const open = state.openText;
  if (!open) return [];
  state.openText = undefined;
  return [{ type: 'item.completed', item: textItem(open, status) }];
}

function textItem(open: OpenText, status: ItemStatus): Item {
  if (open.kind === 'user_message') {
    if (!open.replay) return { kind: 'user_message', id: open.id, status, text: open.text };
    // History the agent replays (session/load) carries its machinery (Claude Code's command records
    // over claude-agent-acp, recorded on 2.0.23.1): core's system-text registry classifies it.
    return classifyUserMessage({ kind: 'user_message', id: open.id, status, text: open.text, replay: true });
  }
  return { kind: open.kind, id: open.id, status, text: open.text };
}

/**
 * Replayed history sends one user_message_chunk per stored entry with no messageId (claude-agent-acp
 * 0.23.1: a `/model` command record, its output and the typed prompt in a row), so machinery never
 * joins its neighbours: each such chunk is a message of its own and is classified alone.
 */
function isMachinery(text: string): boolean {
  return classifyUserText(text).origin !== 'user';
}

/** One message chunk -> the payloads of its text item (opened, extended or replaced by a new one). */
export function textChunk(
  state: TranslateState,
  kind: TextKind,
  update: Record<string, unknown>,
  replay: boolean,
): EventPayload[] {
  const content = update.content;
  if (!isRecord(content) || typeof content.type !== 'string') {
    return [{ type: 'passthrough', frame: update, reason: 'unparsable' }];
  }
  const raw = blockText(content);
  // Images, audio and embedded resources in a message have no item field: they pass through. A text
  // block whose text is not a string is not one the schema allows.
  if (raw === undefined) {
    const malformed = content.type === 'text' || content.type === 'resource_link';
    return [{ type: 'passthrough', frame: content, ...(malformed ? { reason: 'unparsable' as const } : {}) }];
  }
  const messageId = typeof update.messageId === 'string' ? update.messageId : undefined;
  const open = state.openText;
  const sameItem =
    open !== undefined &&
    open.kind === kind &&
    (messageId === undefined || open.messageId === undefined || open.messageId === messageId) &&
    !(replay && kind === 'user_message' && (isMachinery(open.text) || isMachinery(raw)));
  const thought = kind === 'reasoning' ? state.options.thoughtChunk : undefined;
  const text = thought ? thought(raw, sameItem) : raw;
  // claude-agent-acp 0.23.1 opens every message with an empty chunk; it carries nothing.
  if (text === '') return [];
  const status = kind === 'agent_message' && !replay ? state.options.statusChunk?.(text) : undefined;
  if (status?.kind === 'retry') return [{ type: 'notice', kind: 'retry', message: status.message }];
  if (status?.kind === 'provider_error') {
    state.providerError = status.error;
    return [];
  }
  const out: EventPayload[] = [];
  if (!sameItem) {
    out.push(...closeText(state));
    const prefix = kind === 'agent_message' ? 'msg' : kind === 'reasoning' ? 'reasoning' : 'user';
    const next: OpenText = { id: freshId(state, prefix), kind, text: '', replay };
    if (messageId !== undefined) next.messageId = messageId;
    state.openText = next;
    out.push({ type: 'item.started', item: textItem(next, 'running') });
  }
  const current = state.openText as OpenText;
  current.text += text;
  if (kind === 'agent_message' && !replay) {
    if (!sameItem) state.lastAgentText = '';
    state.lastAgentText += text;
    state.turnText += text;
  }
  if (kind !== 'user_message') {
    out.push({ type: 'item.delta', itemId: current.id, kind: kind === 'reasoning' ? 'reasoning' : 'text', text });
  }
  return out;
}
