// Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and `:generateContent`, Gemini CLI):
// SSE of GenerateContentResponse chunks whose parts carry text, `thought: true` text and functionCall; the
// last chunk carries finishReason and usageMetadata (Gemini CLI rejects a stream without a finish reason).
import { asArray, asRecord, asString, type JsonRecord } from '../json.js';
import { chunkText, type PlanPart, type ResponsePlan } from '../plan.js';
import { type Exchange, SseWriter, sendJson } from '../sse.js';
import type { OfferedTool } from '../tools.js';
import { type Dialect, type DialectRequest, finishJson, finishStream, trailingUserTexts } from './dialect.js';

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function errorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: statusNames[status] ?? (status >= 500 ? 'INTERNAL' : 'UNKNOWN') } };
}

function offeredTools(body: JsonRecord): OfferedTool[] {
  return asArray(body.tools).flatMap((entry) =>
    asArray(asRecord(entry)?.functionDeclarations).flatMap((declaration): OfferedTool[] => {
      const fn = asRecord(declaration);
      const name = asString(fn?.name);
      if (!fn || !name) return [];
      const schema = asRecord(fn.parametersJsonSchema) ?? asRecord(fn.parameters);
      return [{ name, kind: 'function', properties: asRecord(schema?.properties) }];
    }),
  );
}

function partsText(content: unknown): string {
  const record = asRecord(content);
  if (typeof content === 'string') return content;
  return asArray(record?.parts)
    .map((part) => asString(asRecord(part)?.text) ?? '')
    .filter(Boolean)
    .join('\n');
}

function latestUserText(body: JsonRecord): string {
  return trailingUserTexts(
    asArray(body.contents),
    (entry) => {
      const content = asRecord(entry);
      if (content?.role !== undefined && content.role !== 'user') return 'stop';
      const isToolResult = asArray(content?.parts).some((part) => asRecord(part)?.functionResponse !== undefined);
      return isToolResult ? 'stop' : 'user';
    },
    partsText,
  );
}

function systemText(body: JsonRecord): string {
  return partsText(body.systemInstruction ?? asRecord(body.config)?.systemInstruction);
}

function usageMetadata(plan: ResponsePlan): JsonRecord {
  const { input, output, cachedInput, reasoning } = plan.usage;
  return {
    promptTokenCount: input,
    candidatesTokenCount: Math.max(0, output - reasoning),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
    ...(cachedInput > 0 ? { cachedContentTokenCount: cachedInput } : {}),
    totalTokenCount: input + output,
  };
}

function wireParts(part: PlanPart, streaming: boolean): JsonRecord[] {
  const texts = (text: string) => (streaming ? chunkText(text) : [text]);
  switch (part.type) {
    case 'text':
      return texts(part.text).map((text) => ({ text }));
    case 'reasoning':
      return texts(part.text).map((text) => ({ text, thought: true }));
    case 'tool':
      return [{ functionCall: { name: part.name, args: asRecord(part.input) ?? {} } }];
  }
}

async function write(exchange: Exchange, request: DialectRequest, plan: ResponsePlan): Promise<void> {
  const responseId = request.ids.next('gemini-api');
  const response = (parts: JsonRecord[], final: boolean): JsonRecord => ({
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(final ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(final ? { usageMetadata: usageMetadata(plan) } : {}),
    modelVersion: request.model,
    responseId,
  });
  if (!request.streaming) {
    const parts = plan.parts.flatMap((part) => wireParts(part, false));
    return finishJson(exchange, plan, { errorBody }, () => sendJson(exchange.res, 200, response(parts, true)));
  }
  const sse = new SseWriter(exchange, plan.delayMs);
  const chunks = plan.parts.flatMap((part) => wireParts(part, true));
  sse.open();
  // The finish reason rides on the last content chunk, so a completed reply needs that chunk held back.
  const completes = plan.ending.kind === 'complete';
  const leading = completes ? chunks.slice(0, -1) : chunks;
  for (const part of leading) await sse.send(response([part], false));
  await finishStream(exchange, sse, plan, {
    complete: async () => {
      const last = chunks.at(-1);
      await sse.send(response(last ? [last] : [{ text: '' }], true));
    },
    error: (message) => sse.send(errorBody(500, message)),
  });
}

export const geminiDialect: Dialect = {
  name: 'gemini-api',
  callIdPrefix: 'call',
  offeredTools,
  latestUserText,
  systemText,
  errorBody,
  write,
};
