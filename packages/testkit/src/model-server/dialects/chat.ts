// OpenAI Chat Completions (`POST /v1/chat/completions`: Qwen Code, Copilot CLI BYOK, OpenCode, Pi, OpenClaw):
// SSE chunks with content, reasoning_content and tool_calls deltas, a finish_reason chunk, a usage chunk
// when stream_options.include_usage is set, then [DONE]; or one chat.completion JSON.
import { asArray, asRecord, asString, collectText, type JsonRecord } from '../json.js';
import { chunkJson, chunkText, type PlanPart, type ResponsePlan, toolArguments } from '../plan.js';
import { type Exchange, SseWriter, sendJson } from '../sse.js';
import type { OfferedTool } from '../tools.js';
import { type Dialect, type DialectRequest, finishJson, finishStream, trailingUserTexts } from './dialect.js';
import { openAiErrorBody } from './openai-errors.js';

function offeredTools(body: JsonRecord): OfferedTool[] {
  return asArray(body.tools).flatMap((entry): OfferedTool[] => {
    const fn = asRecord(asRecord(entry)?.function);
    const name = asString(fn?.name);
    if (!fn || !name) return [];
    return [{ name, kind: 'function', properties: asRecord(asRecord(fn.parameters)?.properties) }];
  });
}

const isSystemRole = (role: unknown) => role === 'system' || role === 'developer';

function latestUserText(body: JsonRecord): string {
  return trailingUserTexts(
    asArray(body.messages),
    (entry) => {
      const role = asRecord(entry)?.role;
      if (role === 'user') return 'user';
      return isSystemRole(role) ? 'skip' : 'stop';
    },
    (entry) => collectText(asRecord(entry)?.content),
  );
}

function systemText(body: JsonRecord): string {
  return asArray(body.messages)
    .map(asRecord)
    .filter((message) => isSystemRole(message?.role))
    .map((message) => collectText(message?.content))
    .join('\n');
}

function usage(plan: ResponsePlan): JsonRecord {
  const { input, output, cachedInput, reasoning } = plan.usage;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cachedInput },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

type ToolPart = Extract<PlanPart, { type: 'tool' }>;

function finishReason(plan: ResponsePlan): string {
  return plan.parts.some((part) => part.type === 'tool') ? 'tool_calls' : 'stop';
}

function toolCall(part: ToolPart): JsonRecord {
  return { id: part.callId, type: 'function', function: { name: part.name, arguments: toolArguments(part) } };
}

function completionMessage(plan: ResponsePlan): JsonRecord {
  const text = plan.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const reasoning = plan.parts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
  const tools = plan.parts.filter((part): part is ToolPart => part.type === 'tool');
  return {
    role: 'assistant',
    content: text === '' && tools.length > 0 ? null : text,
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(tools.length > 0 ? { tool_calls: tools.map(toolCall) } : {}),
  };
}

async function write(exchange: Exchange, request: DialectRequest, plan: ResponsePlan): Promise<void> {
  const id = request.ids.next('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  if (!request.streaming) {
    return finishJson(exchange, plan, { errorBody: openAiErrorBody }, () =>
      sendJson(exchange.res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: [{ index: 0, message: completionMessage(plan), finish_reason: finishReason(plan), logprobs: null }],
        usage: usage(plan),
      }),
    );
  }
  const sse = new SseWriter(exchange, plan.delayMs);
  const chunk = (delta: JsonRecord, finish: string | null = null) =>
    sse.send({
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  sse.open();
  await chunk({ role: 'assistant' });
  let toolIndex = 0;
  for (const part of plan.parts) {
    if (part.type === 'text') {
      for (const text of chunkText(part.text)) await chunk({ content: text });
    } else if (part.type === 'reasoning') {
      for (const text of chunkText(part.text)) await chunk({ reasoning_content: text });
    } else {
      const index = toolIndex++;
      await chunk({
        tool_calls: [{ index, id: part.callId, type: 'function', function: { name: part.name, arguments: '' } }],
      });
      for (const slice of chunkJson(toolArguments(part))) {
        await chunk({ tool_calls: [{ index, function: { arguments: slice } }] });
      }
    }
  }
  const streamOptions = asRecord(request.body.stream_options);
  await finishStream(exchange, sse, plan, {
    complete: async () => {
      await chunk({}, finishReason(plan));
      if (streamOptions?.include_usage === true) {
        await sse.send({
          id,
          object: 'chat.completion.chunk',
          created,
          model: request.model,
          choices: [],
          usage: usage(plan),
        });
      }
      await sse.send('[DONE]');
    },
    // OpenAI-compatible servers report a failure inside the stream as a chunk carrying `error`.
    error: (message) => sse.send(openAiErrorBody(500, message)),
  });
}

export const chatDialect: Dialect = {
  name: 'chat',
  callIdPrefix: 'call',
  offeredTools,
  latestUserText,
  systemText,
  errorBody: openAiErrorBody,
  write,
};
