// Pure translation of OpenClaw gateway events (protocol v4, openclaw 2026.9.6) for ONE Reins session
// (one gateway session key) into Reins event payloads.
//
// Two views of a run arrive: `chat` (the transcript: status/delta/final/aborted/error) and `agent`
// (the runtime: lifecycle, run_status, assistant, item, command_output, usage). Text comes from
// `agent` assistant (it has item ids); `chat` delta repeats the same text and is not used for it.
// The turn's terminal is the `chat` final / aborted / error of the run Reins started (runId = the
// idempotency key of chat.send); the gateway sends `chat` error TWICE for one failed run (2026.9.6),
// and the same tool payload as `session.tool` and as `agent` tool/item: each is handled once.
// Gateway-wide housekeeping events (health, tick, cron, presence, ...) carry nothing about the
// session and are not turned into session events; events of other session keys are ignored; any
// other unknown frame is passed through.
//
// Total over any frame (contract: a harness can only hurt its own session, docs/architecture/contract.md):
// nothing here throws on what the gateway sends. An event, chat state or agent stream 2026.9.6 does not
// document passes through with reason `unknown`; fields without the documented types are left out, never
// guessed (absent is not zero).
import {
  type ErrorInfo,
  type EventPayload,
  type Item,
  isRecord,
  isSerialisable,
  type ProviderErrorKind,
  type TokenUsage,
  type ToolCallItem,
  type ToolKind,
  truncatedValue,
} from '@reins/core';
import type { AgentEventPayload, ChatEventPayload, ChatMessage, GatewayEvent } from './wire.js';

export interface OpenClawTranslateState {
  sessionKey: string;
  /** The run of the current turn (chat.send idempotency key); undefined between turns. */
  runId: string | undefined;
  /** Runs whose terminal was already emitted (the duplicated chat error). */
  finishedRuns: Set<string>;
  texts: Map<string, { id: string; text: string }>;
  tools: Map<string, ToolCallItem>;
  toolOutput: Map<string, string>;
  completedTools: Set<string>;
  /** Command tools whose item ended, waiting for command_output "end" (exit code). */
  endedTools: Map<string, Record<string, unknown>>;
  interruptRequested: boolean;
  userItems: number;
}

export function createOpenClawTranslateState(sessionKey: string): OpenClawTranslateState {
  return {
    sessionKey,
    runId: undefined,
    finishedRuns: new Set(),
    texts: new Map(),
    tools: new Map(),
    toolOutput: new Map(),
    completedTools: new Set(),
    endedTools: new Map(),
    interruptRequested: false,
    userItems: 0,
  };
}

export function beginOpenClawRun(state: OpenClawTranslateState, runId: string): void {
  state.runId = runId;
  state.texts.clear();
  state.tools.clear();
  state.toolOutput.clear();
  state.endedTools.clear();
  state.interruptRequested = false;
}

/** Gateway-wide events with nothing about a session's turn (2026.9.6). */
const HOUSEKEEPING = new Set([
  'health',
  'tick',
  'cron',
  'presence',
  'heartbeat',
  'update.available',
  'sessions.changed',
  'chat.metadata.changed',
  'connect.challenge',
]);

/** What the adapter must do beyond emitting: the run ended (fetch usage, then emit the terminal). */
export interface OpenClawTerminal {
  runId: string;
  outcome: Extract<EventPayload, { type: 'turn.completed' }>['outcome'];
  stopReason?: string;
}

export interface OpenClawTranslation {
  events: EventPayload[];
  terminal?: OpenClawTerminal;
}

export function translateOpenClawEvent(state: OpenClawTranslateState, frame: GatewayEvent): OpenClawTranslation {
  if (!isRecord(frame) || typeof frame.event !== 'string') {
    return { events: [{ type: 'passthrough', frame, reason: 'unparsable' }] };
  }
  if (HOUSEKEEPING.has(frame.event)) return { events: [] };
  const payload = isRecord(frame.payload) ? frame.payload : {};
  const key = typeof payload.sessionKey === 'string' ? payload.sessionKey : undefined;
  if (key !== undefined && key !== state.sessionKey) return { events: [] };
  switch (frame.event) {
    case 'chat':
      return onChat(state, payload as unknown as ChatEventPayload);
    case 'agent':
      return { events: onAgent(state, payload as unknown as AgentEventPayload) };
    case 'session.tool':
      return { events: onTool(state, isRecord(payload.data) ? payload.data : payload) };
    case 'session.message':
      return { events: onSessionMessage(state, payload) };
    default:
      return { events: [{ type: 'passthrough', frame, reason: 'unknown' }] };
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** A foreign value for a payload field: itself, or a marker when it nests too deep to be sent. */
const sendable = (value: unknown): unknown =>
  isSerialisable(value) ? value : truncatedValue('the value nests too deep to be sent');
/** A count the gateway reported; anything else is absent, never zero. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
const exitCodeOf = (value: unknown): number | undefined => (Number.isInteger(value) ? (value as number) : undefined);

function ownRun(state: OpenClawTranslateState, runId: unknown): boolean {
  return typeof runId === 'string' && runId === state.runId;
}

function onChat(state: OpenClawTranslateState, chat: ChatEventPayload): OpenClawTranslation {
  if (!ownRun(state, chat.runId) || state.finishedRuns.has(chat.runId)) return { events: [] };
  const stopReason = str(chat.stopReason);
  switch (chat.state) {
    case 'status':
    case 'delta':
      return { events: [] };
    case 'final': {
      state.finishedRuns.add(chat.runId);
      const events = closeTexts(state, 'completed');
      if (events.length === 0) {
        const text = messageText(chat.message);
        if (text)
          events.push({
            type: 'item.completed',
            item: { kind: 'agent_message', id: `${chat.runId}:final`, status: 'completed', text },
          });
      }
      return {
        events,
        terminal: {
          runId: chat.runId,
          outcome: { status: 'completed' },
          ...(stopReason ? { stopReason } : {}),
        },
      };
    }
    case 'aborted':
      state.finishedRuns.add(chat.runId);
      return {
        events: closeTexts(state, 'cancelled'),
        terminal: { runId: chat.runId, outcome: { status: 'cancelled' }, stopReason: stopReason ?? 'aborted' },
      };
    case 'error':
      state.finishedRuns.add(chat.runId);
      return {
        events: closeTexts(state, 'failed'),
        terminal: state.interruptRequested
          ? { runId: chat.runId, outcome: { status: 'cancelled' }, stopReason: 'error' }
          : {
              runId: chat.runId,
              outcome: { status: 'failed', error: openClawProviderError(chat) },
              stopReason: 'error',
            },
      };
    default:
      return {
        events: [{ type: 'passthrough', frame: { type: 'event', event: 'chat', payload: chat }, reason: 'unknown' }],
      };
  }
}

function closeTexts(state: OpenClawTranslateState, status: 'completed' | 'cancelled' | 'failed'): EventPayload[] {
  const events: EventPayload[] = [];
  for (const [id, data] of [...state.endedTools]) {
    events.push(
      ...onTool(state, merged(data, { toolCallId: id, kind: 'tool', phase: 'end', fromCommandOutput: true })),
    );
  }
  for (const text of state.texts.values()) {
    events.push({ type: 'item.completed', item: { kind: 'agent_message', id: text.id, status, text: text.text } });
  }
  state.texts.clear();
  return events;
}

function messageText(message: ChatMessage | undefined): string {
  if (!isRecord(message)) return '';
  if (typeof message.content === 'string') return message.content;
  return (Array.isArray(message.content) ? message.content : [])
    .filter((block) => isRecord(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
}

function onAgent(state: OpenClawTranslateState, agent: AgentEventPayload): EventPayload[] {
  if (!ownRun(state, agent.runId)) return [];
  const data = isRecord(agent.data) ? agent.data : {};
  switch (agent.stream) {
    case 'lifecycle':
      if (data.phase === 'start') return [{ type: 'session.status', status: 'running' }];
      if (data.phase === 'model' && typeof data.provider === 'string' && typeof data.model === 'string') {
        return [{ type: 'session.updated', model: `${data.provider}/${data.model}` }];
      }
      return [];
    case 'run_status':
      return [];
    case 'assistant':
      return onAssistant(state, data);
    case 'item':
    case 'tool':
      return onTool(state, data);
    case 'command_output':
      return onCommandOutput(state, data);
    case 'usage':
      return [];
    default:
      return [{ type: 'passthrough', frame: { type: 'event', event: 'agent', payload: agent }, reason: 'unknown' }];
  }
}

function onAssistant(state: OpenClawTranslateState, data: Record<string, unknown>): EventPayload[] {
  const itemId = typeof data.itemId === 'string' ? data.itemId : `${state.runId}:text`;
  const events: EventPayload[] = [];
  let text = state.texts.get(itemId);
  if (!text) {
    text = { id: itemId, text: '' };
    state.texts.set(itemId, text);
    events.push({ type: 'item.started', item: { kind: 'agent_message', id: itemId, status: 'running', text: '' } });
  }
  const delta = typeof data.delta === 'string' ? data.delta : undefined;
  if (typeof data.text === 'string') text.text = data.text;
  else if (delta) text.text += delta;
  if (delta) events.push({ type: 'item.delta', itemId, kind: 'text', text: delta });
  return events;
}

/** OpenClaw 2026.9.6 tools: `exec` runs commands; write/edit/apply_patch change files. */
export function openClawToolKind(name: string): ToolKind {
  if (name === 'exec' || name === 'bash' || name === 'process') return 'command';
  if (name === 'write' || name === 'edit' || name === 'apply_patch') return 'file_change';
  if (name === 'web_search' || name === 'web_fetch') return 'web_search';
  if (name === 'sessions_spawn' || name === 'subagents') return 'subagent';
  return 'other';
}

function onTool(state: OpenClawTranslateState, data: Record<string, unknown>): EventPayload[] {
  // item stream kinds other than tools (preamble commentary, ...) repeat what assistant text says.
  if (data.kind !== undefined && data.kind !== 'tool') return [];
  const id = typeof data.toolCallId === 'string' ? data.toolCallId : undefined;
  if (!id || state.completedTools.has(id)) return [];
  const name = typeof data.name === 'string' ? data.name : 'tool';
  const events: EventPayload[] = [];
  let item = state.tools.get(id);
  if (!item) {
    item = {
      kind: 'tool_call',
      id,
      status: 'running',
      tool: { kind: openClawToolKind(name), name, ...(typeof data.title === 'string' ? { title: data.title } : {}) },
      // 2026.9.6 item events carry a title, not the arguments: input stays absent unless sent.
      input: sendable(data.args ?? data.input),
    };
    state.tools.set(id, item);
    events.push({ type: 'item.started', item });
  }
  const phase = data.phase;
  const status = data.status;
  const ended =
    phase === 'end' || phase === 'result' || status === 'completed' || status === 'failed' || status === 'error';
  // 2026.9.6 sends a command's exit code only on command_output phase "end", right AFTER the item's
  // end: a command-bearing tool is settled there (or at the run's terminal if that never comes).
  if (ended && data.commandBearing === true && !data.fromCommandOutput) {
    state.endedTools.set(id, data);
    return events;
  }
  if (ended) {
    state.tools.delete(id);
    state.endedTools.delete(id);
    state.completedTools.add(id);
    const failed = status === 'failed' || status === 'error' || data.isError === true;
    const output = state.toolOutput.get(id) ?? (typeof data.output === 'string' ? data.output : undefined);
    const done = merged(item as unknown as Record<string, unknown>, {
      status: failed ? 'failed' : 'completed',
      ...(output !== undefined
        ? { output: { text: output, ...(data.result !== undefined ? { structured: sendable(data.result) } : {}) } }
        : {}),
      ...(exitCodeOf(data.exitCode) !== undefined ? { exitCode: exitCodeOf(data.exitCode) } : {}),
    }) as unknown as ToolCallItem;
    events.push({ type: 'item.completed', item: done });
  }
  return events;
}

function onCommandOutput(state: OpenClawTranslateState, data: Record<string, unknown>): EventPayload[] {
  const id = typeof data.toolCallId === 'string' ? data.toolCallId : undefined;
  if (!id || state.completedTools.has(id)) return [];
  const events = state.tools.has(id)
    ? []
    : onTool(state, merged(data, { kind: 'tool', phase: 'start', status: 'running' }));
  const output = typeof data.output === 'string' ? data.output : undefined;
  if (output !== undefined) {
    const seen = state.toolOutput.get(id) ?? '';
    // command_output deltas carry the new chunk on 2026.9.6; an accumulated snapshot is handled too.
    const fresh = output.startsWith(seen) && seen !== '' ? output.slice(seen.length) : output;
    state.toolOutput.set(id, output.startsWith(seen) && seen !== '' ? output : seen + output);
    if (fresh) events.push({ type: 'item.delta', itemId: id, kind: 'tool_output', text: fresh });
  }
  const item = state.tools.get(id);
  const exitCode = exitCodeOf(data.exitCode);
  if (item && exitCode !== undefined)
    state.tools.set(id, merged(item as unknown as Record<string, unknown>, { exitCode }) as unknown as ToolCallItem);
  if (data.phase === 'end') {
    const ended = state.endedTools.get(id) ?? {};
    events.push(...onTool(state, merged(merged(ended, data), { kind: 'tool', phase: 'end', fromCommandOutput: true })));
  }
  return events;
}

/**
 * `{ ...source, ...extra }`, for the frames of every tool call: on Node 20 a spread copy that gains keys
 * costs ~3 µs (the bench's translate figure), a copy key by key (the same keys in the same order) does not.
 * A `__proto__` key (JSON.parse makes it an own key) takes the spread, which defines it rather than
 * setting the prototype.
 */
function merged(source: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    if (key === '__proto__') return { ...source, ...extra };
    out[key] = source[key];
  }
  for (const key in extra) {
    if (key === '__proto__') return { ...source, ...extra };
    out[key] = extra[key];
  }
  return out;
}

function onSessionMessage(state: OpenClawTranslateState, payload: Record<string, unknown>): EventPayload[] {
  const message = isRecord(payload.message) ? (payload.message as ChatMessage) : undefined;
  if (message?.role !== 'user' || !state.runId) return [];
  const key = typeof message.idempotencyKey === 'string' ? message.idempotencyKey : '';
  if (!key.startsWith(state.runId)) return [];
  state.userItems++;
  return [
    {
      type: 'item.completed',
      item: { kind: 'user_message', id: `${state.runId}:user`, status: 'completed', text: messageText(message) },
    },
  ];
}

// ---- errors and usage ----
export function openClawProviderError(chat: ChatEventPayload): ErrorInfo {
  const detail: NonNullable<ChatEventPayload['errorDetail']> = isRecord(chat.errorDetail) ? chat.errorDetail : {};
  const status = Number.isInteger(detail.httpStatus) ? detail.httpStatus : undefined;
  const reason = [detail.failoverReason, detail.providerRuntimeFailureKind, chat.errorKind]
    .map((part) => str(part) ?? '')
    .join(' ');
  let kind: ProviderErrorKind = 'unknown';
  if (status === 429 || /rate/i.test(reason)) kind = 'rate_limited';
  else if (status === 529 || /overload/i.test(reason)) kind = 'overloaded';
  else if (/context/i.test(reason)) kind = 'context_window_exceeded';
  else if ((status !== undefined && status >= 500) || /server|timeout/i.test(reason)) kind = 'server_error';
  else if ((status !== undefined && status >= 400) || /format|schema|invalid/i.test(reason)) kind = 'bad_request';
  else if (/network|connect/i.test(reason)) kind = 'connection_failed';
  return {
    code: 'provider_error',
    message: str(chat.errorMessage) ?? 'The model provider reported an error.',
    retryable: kind === 'rate_limited' || kind === 'overloaded' || kind === 'server_error',
    data: {
      kind,
      ...(status !== undefined ? { status } : {}),
      ...(str(detail.failoverReason) ? { failoverReason: detail.failoverReason } : {}),
      ...(str(detail.provider) ? { provider: detail.provider } : {}),
    },
  };
}

/**
 * Usage of one run from the transcript (chat.history): the assistant messages the run wrote carry
 * the provider's token counts and OpenClaw's cost for them (2026.9.6 `usage.cost.total`).
 */
export function openClawRunUsage(messages: readonly unknown[], runId: string) {
  const turn: TokenUsage = {};
  let cost: number | undefined;
  let seen = false;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant') continue;
    const meta = isRecord(message.__openclaw) ? message.__openclaw : {};
    if (meta.runId !== runId || !isRecord(message.usage)) continue;
    seen = true;
    const usage = message.usage;
    const add = (key: keyof TokenUsage, value: unknown) => {
      const n = count(value);
      if (n !== undefined) turn[key] = (turn[key] ?? 0) + n;
    };
    add('input', usage.input);
    add('output', usage.output);
    add('cachedInput', usage.cacheRead);
    add('cacheWrite', usage.cacheWrite);
    add('reasoning', usage.reasoningTokens);
    add('total', usage.totalTokens);
    const total = isRecord(usage.cost) ? count(usage.cost.total) : undefined;
    if (total !== undefined && total > 0) cost = (cost ?? 0) + total;
  }
  if (!seen) return undefined;
  return {
    turn,
    // OpenClaw reports the cost itself (priced from its model table); a zero total means no price known.
    ...(cost !== undefined ? { costUsd: { amount: cost, currency: 'USD' as const, source: 'provider' as const } } : {}),
  };
}

/** Transcript messages (chat.history) as items, every one completed and marked replayed where it is user input. */
export function openClawHistoryItems(messages: readonly unknown[]): Item[] {
  const items: Item[] = [];
  const tools = new Map<string, ToolCallItem>();
  messages.forEach((raw, index) => {
    if (!isRecord(raw)) return;
    const message = raw as ChatMessage;
    const id = `openclaw-history-${index}`;
    if (message.role === 'user') {
      items.push({ kind: 'user_message', id, status: 'completed', text: messageText(message), replay: true });
    } else if (message.role === 'assistant') {
      const blocks: unknown[] =
        typeof message.content === 'string'
          ? [{ type: 'text', text: message.content }]
          : Array.isArray(message.content)
            ? message.content
            : [];
      blocks.forEach((block, blockIndex) => {
        if (!isRecord(block)) return;
        if (block.type === 'text' && typeof block.text === 'string') {
          items.push({ kind: 'agent_message', id: `${id}-${blockIndex}`, status: 'completed', text: block.text });
        } else if (block.type === 'toolCall' && typeof block.id === 'string') {
          const name = typeof block.name === 'string' ? block.name : 'tool';
          const item: ToolCallItem = {
            kind: 'tool_call',
            id: block.id,
            status: 'cancelled',
            tool: { kind: openClawToolKind(name), name },
            input: block.arguments ?? {},
          };
          tools.set(block.id, item);
          items.push(item);
        }
      });
    } else if (message.role === 'toolResult' && typeof message.toolCallId === 'string') {
      const item = tools.get(message.toolCallId);
      if (!item) return;
      item.status = message.isError === true ? 'failed' : 'completed';
      const text = messageText(message);
      if (text) item.output = { text };
    }
  });
  return items;
}
