// Anthropic Messages API (`POST /v1/messages`, Claude Code and claude-agent-acp): SSE with message_start,
// content blocks (text, thinking + signature, tool_use via input_json_delta), message_delta, message_stop;
// and the JSON form, which Claude Code falls back to after a failed stream (docs/harnesses/claude-code.md).
import { asArray, asRecord, asString, collectText, type JsonRecord } from '../json.js';
import { chunkJson, chunkText, type PlanPart, type ResponsePlan, toolArguments } from '../plan.js';
import { type Exchange, SseWriter, sendJson } from '../sse.js';
import type { OfferedTool } from '../tools.js';
import { type Dialect, type DialectRequest, finishJson, finishStream, trailingUserTexts } from './dialect.js';

/** A fixed fake signature: Claude Code stores and resends it, it never verifies it. */
const thinkingSignature = 'c2NyaXB0ZWQtdGhpbmtpbmctc2lnbmF0dXJl';

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: errorTypes[status] ?? 'api_error', message } };
}

function offeredTools(body: JsonRecord): OfferedTool[] {
  return asArray(body.tools).flatMap((entry) => {
    const tool = asRecord(entry);
    const name = asString(tool?.name);
    if (!tool || !name) return [];
    const schema = asRecord(tool.input_schema);
    return [{ name, kind: schema ? 'function' : 'builtin', properties: asRecord(schema?.properties) }];
  });
}

function latestUserText(body: JsonRecord): string {
  return trailingUserTexts(
    asArray(body.messages),
    (entry) => {
      const message = asRecord(entry);
      // Claude Code may put role "system" entries among the messages (docs/harnesses/claude-code.md).
      if (message?.role === 'system') return 'skip';
      if (message?.role !== 'user') return 'stop';
      const hasToolResult = asArray(message.content).some((block) => asRecord(block)?.type === 'tool_result');
      return hasToolResult ? 'stop' : 'user';
    },
    (entry) => collectText(asRecord(entry)?.content),
  );
}

function systemText(body: JsonRecord): string {
  return collectText(body.system);
}

function usageFields(plan: ResponsePlan) {
  // Anthropic's input_tokens excludes cache reads; our `input` is the whole prompt.
  return {
    input_tokens: Math.max(0, plan.usage.input - plan.usage.cachedInput),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: plan.usage.cachedInput,
  };
}

function stopReason(plan: ResponsePlan): string {
  return plan.parts.some((part) => part.type === 'tool') ? 'tool_use' : 'end_turn';
}

function contentBlock(part: PlanPart): JsonRecord {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return { type: 'thinking', thinking: part.text, signature: thinkingSignature };
    case 'tool':
      return { type: 'tool_use', id: part.callId, name: part.name, input: part.input ?? {} };
  }
}

async function streamPart(sse: SseWriter, index: number, part: PlanPart): Promise<void> {
  const delta = (body: JsonRecord) =>
    sse.send({ type: 'content_block_delta', index, delta: body }, 'content_block_delta');
  const start = (block: JsonRecord) =>
    sse.send({ type: 'content_block_start', index, content_block: block }, 'content_block_start');
  if (part.type === 'text') {
    await start({ type: 'text', text: '' });
    for (const chunk of chunkText(part.text)) await delta({ type: 'text_delta', text: chunk });
  } else if (part.type === 'reasoning') {
    await start({ type: 'thinking', thinking: '', signature: '' });
    for (const chunk of chunkText(part.text)) await delta({ type: 'thinking_delta', thinking: chunk });
    await delta({ type: 'signature_delta', signature: thinkingSignature });
  } else {
    await start({ type: 'tool_use', id: part.callId, name: part.name, input: {} });
    for (const chunk of chunkJson(toolArguments(part))) await delta({ type: 'input_json_delta', partial_json: chunk });
  }
  await sse.send({ type: 'content_block_stop', index }, 'content_block_stop');
}

async function write(exchange: Exchange, request: DialectRequest, plan: ResponsePlan): Promise<void> {
  const id = request.ids.next('msg');
  if (!request.streaming) {
    return finishJson(exchange, plan, { errorBody }, () =>
      sendJson(exchange.res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: plan.parts.map(contentBlock),
        stop_reason: stopReason(plan),
        stop_sequence: null,
        usage: { ...usageFields(plan), output_tokens: plan.usage.output },
      }),
    );
  }
  const sse = new SseWriter(exchange, plan.delayMs);
  sse.open();
  await sse.send(
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageFields(plan), output_tokens: 1 },
      },
    },
    'message_start',
  );
  await sse.send({ type: 'ping' }, 'ping');
  for (const [index, part] of plan.parts.entries()) await streamPart(sse, index, part);
  await finishStream(exchange, sse, plan, {
    complete: async () => {
      await sse.send(
        {
          type: 'message_delta',
          delta: { stop_reason: stopReason(plan), stop_sequence: null },
          usage: { ...usageFields(plan), output_tokens: plan.usage.output },
        },
        'message_delta',
      );
      await sse.send({ type: 'message_stop' }, 'message_stop');
    },
    error: (message) => sse.send({ type: 'error', error: { type: 'overloaded_error', message } }, 'error'),
  });
}

export const anthropicDialect: Dialect = {
  name: 'anthropic',
  callIdPrefix: 'toolu',
  offeredTools,
  latestUserText,
  systemText,
  errorBody,
  write,
};
