// ACP v2 (draft 2.0.0-alpha, the SDK's experimental/v2) spoken to an agent, seen by the rest of the
// adapter as v1: the connection asks for v2 at initialize when the harness options say so, and with an
// agent that answers 2 it runs every request, answer and update through this dialect. Translation is
// pure except for the per-connection memory v2 needs (what text a message id already delivered, a tool
// call's streamed content, which tool a terminal belongs to). Rules (docs/architecture/acp.md, "ACP v2
// in the adapter"):
// - A prompt's answer is only an acknowledgment; the turn ends with the session's `state_update` idle
//   (its stopReason, or `error`), which the connection turns into the v1 prompt answer.
// - Messages are upserts by id: a full `agent_message` after chunks adds only what the chunks did not
//   carry (the text reaches Reins once); tool calls are `tool_call_update` upserts (translate.ts opens an
//   item for an unknown id), their appended content chunks are gathered into the full list v1 replaces.
// - Terminal output (`terminal_output_chunk`, base64) reaches the tool that shows the terminal as
//   `_meta.terminal_output_delta`, its exit as `_meta.terminal_exit` (acp/tool-calls.ts reads both).
// - `session/load` is v2's `session/resume` with `replayFrom: {type: "start"}`; config options are
//   named `configId` (v1 `id`) and a set_config_option names its value's type.
import { isRecord } from '@reins/core';
import type { InitializeResponse, SessionUpdate } from './wire.js';

type Json = Record<string, unknown>;

/** The idle state that ended a turn: its stop reason, or the agent's error. */
export interface IdleState {
  stopReason: string;
  error?: { code: number; message: string; data?: unknown };
}

/** v2 initialize answer -> the v1 shape the adapter reads (resume, list and close are v2 baseline). */
export function v1InitializeOf(v2: Json): InitializeResponse {
  const capabilities = isRecord(v2.capabilities) ? v2.capabilities : {};
  const session = isRecord(capabilities.session) ? capabilities.session : {};
  const prompt = isRecord(session.prompt) ? session.prompt : {};
  const info = isRecord(v2.info) ? v2.info : undefined;
  return {
    protocolVersion: 2,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: {
        image: isRecord(prompt.image),
        audio: isRecord(prompt.audio),
        embeddedContext: isRecord(prompt.embeddedContext),
      },
      sessionCapabilities: { resume: {}, list: {}, close: {} },
      ...(isRecord(capabilities._meta) ? { _meta: capabilities._meta } : {}),
    },
    authMethods: Array.isArray(v2.authMethods) ? (v2.authMethods as InitializeResponse['authMethods']) : [],
    ...(info ? { agentInfo: info as InitializeResponse['agentInfo'] } : {}),
  } as InitializeResponse;
}

/** v2 config options -> v1 (`configId` -> `id`). */
function v1ConfigOptions(options: unknown): unknown {
  if (!Array.isArray(options)) return options;
  return options.map((option) => {
    if (!isRecord(option) || typeof option.configId !== 'string') return option;
    const { configId, ...rest } = option;
    return { id: configId, ...rest };
  });
}

/** A v2 answer's config options in the v1 shape (session/new, resume, set_config_option). */
export function v1AnswerOf(result: unknown): unknown {
  if (!isRecord(result) || !('configOptions' in result)) return result;
  return { ...result, configOptions: v1ConfigOptions(result.configOptions) };
}

/** v2 `session/request_permission` params -> v1's (the subject's tool call, or one named by the title). */
export function v1PermissionParamsOf(params: Json, requestNumber: number): Json {
  const subject = isRecord(params.subject) ? params.subject : undefined;
  const toolCall = isRecord(subject?.toolCall)
    ? subject.toolCall
    : { toolCallId: `permission-${requestNumber}`, title: typeof params.title === 'string' ? params.title : undefined };
  return {
    sessionId: params.sessionId,
    toolCall,
    options: params.options,
    ...(params._meta ? { _meta: params._meta } : {}),
  };
}

const decodeBase64 = (data: unknown): string =>
  typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : '';

/** The memory one v2 connection needs to turn upserts into v1 updates. */
export class V2Updates {
  /** messageId -> the text already delivered for it. */
  private readonly texts = new Map<string, string>();
  /** toolCallId -> its content so far (v2 appends chunks; v1 content replaces the list). */
  private readonly toolContent = new Map<string, unknown[]>();
  /** terminalId -> the tool call that shows it. */
  private readonly terminals = new Map<string, string>();
  /** terminalId -> the output delivered (chunks append; a terminal_update's output is a snapshot). */
  private readonly terminalText = new Map<string, string>();

  /**
   * One v2 update -> the v1 updates that say the same; an idle state is returned apart (it ends the
   * session's turn). Running / requires_action carry nothing v1 has.
   */
  translate(update: Json): { updates: SessionUpdate[]; idle?: IdleState } {
    const as = (value: Json) => value as unknown as SessionUpdate;
    switch (update.sessionUpdate) {
      case 'state_update': {
        if (update.state !== 'idle') return { updates: [] };
        const error = isRecord(update.error) ? (update.error as unknown as IdleState['error']) : undefined;
        const stopReason = typeof update.stopReason === 'string' ? update.stopReason : 'end_turn';
        return { updates: [], idle: { stopReason, ...(error ? { error } : {}) } };
      }
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
      case 'user_message_chunk': {
        const content = update.content as Json | undefined;
        if (typeof update.messageId === 'string' && content?.type === 'text' && typeof content.text === 'string') {
          this.texts.set(update.messageId, (this.texts.get(update.messageId) ?? '') + content.text);
        }
        return { updates: [as(update)] };
      }
      case 'agent_message':
      case 'agent_thought':
      case 'user_message':
        return { updates: this.wholeMessage(update) };
      case 'tool_call_update':
        return { updates: [as(this.toolCall(update))] };
      case 'tool_call_content_chunk': {
        const id = String(update.toolCallId);
        const content = [...(this.toolContent.get(id) ?? [])];
        const last = content.at(-1) as Json | undefined;
        const chunk = update.content as Json;
        const lastText =
          isRecord(last?.content) && last.content.type === 'text' ? (last.content.text as string) : undefined;
        const chunkText =
          isRecord(chunk?.content) && chunk.content.type === 'text' ? (chunk.content.text as string) : undefined;
        // Text appended to text is one block, as v1 agents send a growing block.
        if (
          last?.type === 'content' &&
          chunk?.type === 'content' &&
          lastText !== undefined &&
          chunkText !== undefined
        ) {
          content[content.length - 1] = { type: 'content', content: { type: 'text', text: lastText + chunkText } };
        } else content.push(chunk);
        return { updates: [as(this.toolCall({ toolCallId: id, content }))] };
      }
      case 'terminal_output_chunk':
      case 'terminal_update':
        return { updates: this.terminal(update) };
      case 'plan_update': {
        const plan = isRecord(update.plan) ? update.plan : {};
        return plan.type === 'items'
          ? { updates: [as({ sessionUpdate: 'plan', entries: plan.entries ?? [] })] }
          : { updates: [] };
      }
      case 'config_option_update':
        return { updates: [as({ ...update, configOptions: v1ConfigOptions(update.configOptions) })] };
      default:
        // Commands, session info, usage, notices, compaction: the same shape in v1.
        return { updates: [as(update)] };
    }
  }

  /** A whole message upsert: only the text its chunks have not delivered yet, as one chunk. */
  private wholeMessage(update: Json): SessionUpdate[] {
    const kind = `${String(update.sessionUpdate)}_chunk`;
    const messageId = String(update.messageId);
    const blocks = Array.isArray(update.content) ? (update.content as Json[]) : [];
    const text = blocks
      .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
      .join('');
    const sent = this.texts.get(messageId) ?? '';
    const out: SessionUpdate[] = [];
    if (text.startsWith(sent) && text.length > sent.length) {
      out.push({
        sessionUpdate: kind,
        messageId,
        content: { type: 'text', text: text.slice(sent.length) },
      } as SessionUpdate);
      this.texts.set(messageId, text);
    }
    // Non-text blocks (images, links) of a message that carried none before.
    if (sent === '' && !this.texts.has(`${messageId}#blocks`)) {
      for (const block of blocks.filter((block) => block.type !== 'text')) {
        out.push({ sessionUpdate: kind, messageId, content: block } as unknown as SessionUpdate);
      }
      this.texts.set(`${messageId}#blocks`, '');
    }
    return out;
  }

  /** A tool call upsert in the v1 shape: diffs as locations, terminals remembered for their output. */
  private toolCall(update: Json): Json {
    const id = String(update.toolCallId);
    const out: Json = { ...update, sessionUpdate: 'tool_call_update' };
    if (Array.isArray(update.content)) {
      this.toolContent.set(id, update.content);
      const locations: Json[] = [];
      const content: unknown[] = [];
      for (const item of update.content as Json[]) {
        if (item.type === 'terminal' && typeof item.terminalId === 'string') this.terminals.set(item.terminalId, id);
        if (item.type === 'diff' && Array.isArray(item.changes)) {
          for (const change of item.changes as Json[])
            if (typeof change.path === 'string') locations.push({ path: change.path });
        } else content.push(item);
      }
      out.content = content;
      if (locations.length > 0 && !Array.isArray(update.locations)) out.locations = locations;
    }
    return out;
  }

  /** Terminal output and exit -> the showing tool's `_meta` (nothing when no tool shows the terminal). */
  private terminal(update: Json): SessionUpdate[] {
    const toolCallId = typeof update.terminalId === 'string' ? this.terminals.get(update.terminalId) : undefined;
    if (!toolCallId) return [];
    const terminalId = update.terminalId as string;
    const meta: Json = {};
    const delivered = this.terminalText.get(terminalId) ?? '';
    let output = '';
    if (update.sessionUpdate === 'terminal_output_chunk') output = decodeBase64(update.data);
    else if (isRecord(update.output)) {
      // A snapshot: only what it adds to what was delivered (one that disagrees adds nothing).
      const snapshot = decodeBase64(update.output.data);
      if (snapshot.startsWith(delivered)) output = snapshot.slice(delivered.length);
    }
    if (output) {
      this.terminalText.set(terminalId, delivered + output);
      meta.terminal_output_delta = { data: output, terminal_id: terminalId };
    }
    const exit = isRecord(update.exitStatus) ? update.exitStatus : undefined;
    if (exit)
      meta.terminal_exit = {
        exit_code: exit.exitCode ?? null,
        signal: exit.signal ?? null,
        terminal_id: update.terminalId,
      };
    if (Object.keys(meta).length === 0) return [];
    return [{ sessionUpdate: 'tool_call_update', toolCallId, _meta: meta } as unknown as SessionUpdate];
  }
}
