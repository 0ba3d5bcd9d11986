// OpenAI Responses API (`POST /v1/responses`, Codex): response.created / in_progress, one output item per
// plan part with its deltas (message text, reasoning summary, function_call arguments, custom_tool_call
// input), output_item.done, and response.completed with usage; in-band failure is response.failed.
// Codex needs usage on response.completed to emit tokenUsage (docs/harnesses/codex.md).
import { asArray, asRecord, asString, collectText, type JsonRecord } from '../json.js';
import { chunkJson, chunkText, type PlanPart, type ResponsePlan, toolArguments } from '../plan.js';
import { type Exchange, SseWriter, sendJson } from '../sse.js';
import type { OfferedTool } from '../tools.js';
import { type Dialect, type DialectRequest, finishJson, finishStream, trailingUserTexts } from './dialect.js';
import { openAiErrorBody } from './openai-errors.js';

function offeredTools(body: JsonRecord): OfferedTool[] {
  return asArray(body.tools).flatMap((entry): OfferedTool[] => {
    const tool = asRecord(entry);
    const type = asString(tool?.type);
    if (!tool || !type) return [];
    const name = asString(tool.name) ?? type;
    if (type === 'function') {
      return [{ name, kind: 'function', properties: asRecord(asRecord(tool.parameters)?.properties) }];
    }
    if (type === 'custom') return [{ name, kind: 'custom', properties: undefined }];
    return [{ name, kind: 'builtin', properties: undefined }];
  });
}

function messageText(item: JsonRecord): string {
  return typeof item.content === 'string' ? item.content : collectText(item.content);
}

function latestUserText(body: JsonRecord): string {
  if (typeof body.input === 'string') return body.input;
  return trailingUserTexts(
    asArray(body.input),
    (entry) => {
      const item = asRecord(entry);
      const isMessage = item?.type === 'message' || (item?.type === undefined && item?.role !== undefined);
      if (!item || !isMessage) return 'stop';
      if (item.role === 'user') return 'user';
      return item.role === 'system' || item.role === 'developer' ? 'skip' : 'stop';
    },
    (entry) => messageText(asRecord(entry) ?? {}),
  );
}

function systemText(body: JsonRecord): string {
  const developer = asArray(body.input)
    .map(asRecord)
    .filter((item) => item?.role === 'system' || item?.role === 'developer')
    .map((item) => messageText(item ?? {}));
  return [asString(body.instructions) ?? '', ...developer].filter(Boolean).join('\n');
}

function usage(plan: ResponsePlan): JsonRecord {
  const { input, output, cachedInput, reasoning } = plan.usage;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cachedInput },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

interface ItemIds {
  itemId: string;
}

function itemPrefix(part: PlanPart): string {
  if (part.type === 'text') return 'msg';
  if (part.type === 'reasoning') return 'rs';
  return part.custom ? 'ctc' : 'fc';
}

/** The finished form of an output item, as sent in output_item.done and response.completed. */
function doneItem(part: PlanPart, { itemId }: ItemIds): JsonRecord {
  switch (part.type) {
    case 'text':
      return {
        id: itemId,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: part.text, annotations: [], logprobs: [] }],
      };
    case 'reasoning':
      return { id: itemId, type: 'reasoning', summary: [{ type: 'summary_text', text: part.text }] };
    case 'tool':
      return part.custom
        ? {
            id: itemId,
            type: 'custom_tool_call',
            status: 'completed',
            call_id: part.callId,
            name: part.name,
            input: toolArguments(part),
          }
        : {
            id: itemId,
            type: 'function_call',
            status: 'completed',
            call_id: part.callId,
            name: part.name,
            ...(part.namespace ? { namespace: part.namespace } : {}),
            arguments: toolArguments(part),
          };
  }
}

function addedItem(part: PlanPart, ids: ItemIds): JsonRecord {
  const done = doneItem(part, ids);
  if (part.type === 'text') return { ...done, status: 'in_progress', content: [] };
  if (part.type === 'reasoning') return { ...done, summary: [] };
  return part.custom
    ? { ...done, status: 'in_progress', input: '' }
    : { ...done, status: 'in_progress', arguments: '' };
}

function baseResponse(id: string, model: string, status: string): JsonRecord {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
  };
}

async function write(exchange: Exchange, request: DialectRequest, plan: ResponsePlan): Promise<void> {
  const responseId = request.ids.next('resp');
  const ids = plan.parts.map((part) => ({ itemId: request.ids.next(itemPrefix(part)) }));
  const output = plan.parts.map((part, index) => doneItem(part, ids[index] as ItemIds));
  const completed = { ...baseResponse(responseId, request.model, 'completed'), output, usage: usage(plan) };
  if (!request.streaming) {
    return finishJson(exchange, plan, { errorBody: openAiErrorBody }, () => sendJson(exchange.res, 200, completed));
  }
  const sse = new SseWriter(exchange, plan.delayMs);
  let sequence = 0;
  const emit = (type: string, fields: JsonRecord) => sse.send({ type, sequence_number: sequence++, ...fields }, type);
  sse.open();
  await emit('response.created', { response: baseResponse(responseId, request.model, 'in_progress') });
  await emit('response.in_progress', { response: baseResponse(responseId, request.model, 'in_progress') });
  for (const [outputIndex, part] of plan.parts.entries()) {
    const itemIds = ids[outputIndex] as ItemIds;
    const item_id = itemIds.itemId;
    await emit('response.output_item.added', { output_index: outputIndex, item: addedItem(part, itemIds) });
    if (part.type === 'text') {
      const at = { item_id, output_index: outputIndex, content_index: 0 };
      await emit('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of chunkText(part.text))
        await emit('response.output_text.delta', { ...at, delta, logprobs: [] });
      await emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
      await emit('response.content_part.done', {
        ...at,
        part: { type: 'output_text', text: part.text, annotations: [] },
      });
    } else if (part.type === 'reasoning') {
      const at = { item_id, output_index: outputIndex, summary_index: 0 };
      await emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of chunkText(part.text)) await emit('response.reasoning_summary_text.delta', { ...at, delta });
      await emit('response.reasoning_summary_text.done', { ...at, text: part.text });
      await emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: part.text } });
    } else {
      const at = { item_id, output_index: outputIndex };
      const text = toolArguments(part);
      const kind = part.custom ? 'custom_tool_call_input' : 'function_call_arguments';
      for (const delta of chunkJson(text)) await emit(`response.${kind}.delta`, { ...at, delta });
      await emit(`response.${kind}.done`, part.custom ? { ...at, input: text } : { ...at, arguments: text });
    }
    await emit('response.output_item.done', { output_index: outputIndex, item: output[outputIndex] });
  }
  await finishStream(exchange, sse, plan, {
    complete: () => emit('response.completed', { response: completed }),
    error: (message) =>
      emit('response.failed', {
        response: {
          ...baseResponse(responseId, request.model, 'failed'),
          output,
          error: { code: 'server_error', message },
        },
      }),
  });
}

export const responsesDialect: Dialect = {
  name: 'responses',
  callIdPrefix: 'call',
  offeredTools,
  latestUserText,
  systemText,
  errorBody: openAiErrorBody,
  write,
};
