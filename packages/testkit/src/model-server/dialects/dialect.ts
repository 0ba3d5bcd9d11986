// What every wire dialect provides: how to read a request (tools offered, what the user just said) and how
// to write a ResponsePlan back, streaming or as one JSON body, including its stall and failure endings.
import type { JsonRecord } from '../json.js';
import type { IdSource, ResponsePlan } from '../plan.js';
import { destroySocket, type Exchange, ExchangeAborted, holdOpen, type SseWriter } from '../sse.js';
import type { OfferedTool } from '../tools.js';

/** The wire dialects by API; `gemini-api` is Google's Gemini API (which more than one harness speaks), not a harness id. */
export type DialectName = 'anthropic' | 'responses' | 'chat' | 'gemini-api';

export interface DialectRequest {
  body: JsonRecord;
  streaming: boolean;
  model: string;
  ids: IdSource;
}

export interface Dialect {
  readonly name: DialectName;
  /** Prefix of tool call ids this dialect's real servers use (`toolu`, `call`). */
  readonly callIdPrefix: string;
  offeredTools(body: JsonRecord): OfferedTool[];
  /**
   * Text of the user message(s) at the END of the conversation, i.e. what the user said in this round.
   * Empty when the request is a tool round (it ends with tool results), so `when()` does not match again.
   */
  latestUserText(body: JsonRecord): string;
  /** System prompt / instructions text, for auxiliary recognizers. */
  systemText(body: JsonRecord): string;
  errorBody(status: number, message: string): unknown;
  write(exchange: Exchange, request: DialectRequest, plan: ResponsePlan): Promise<void>;
}

/**
 * Shared tail of every streaming writer: complete normally, hold the stream open, or break it either by
 * cutting the socket or with the dialect's in-band error frame.
 */
export async function finishStream(
  exchange: Exchange,
  sse: SseWriter,
  plan: ResponsePlan,
  frames: { complete(): Promise<void>; error(message: string): Promise<void> },
): Promise<void> {
  const ending = plan.ending;
  if (ending.kind === 'stall') return holdOpen(exchange);
  if (ending.kind === 'failMidStream') {
    if (ending.mode === 'destroy') {
      destroySocket(exchange);
      throw new ExchangeAborted();
    }
    await frames.error(ending.message);
    sse.end();
    return;
  }
  await frames.complete();
  sse.end();
}

/** Non-streaming counterpart: a stall holds the request, a mid-stream failure cuts it or answers 500. */
export async function finishJson(
  exchange: Exchange,
  plan: ResponsePlan,
  dialect: Pick<Dialect, 'errorBody'>,
  send: () => void,
): Promise<void> {
  const ending = plan.ending;
  if (ending.kind === 'stall') return holdOpen(exchange);
  if (ending.kind === 'failMidStream') {
    if (ending.mode === 'destroy') {
      destroySocket(exchange);
      throw new ExchangeAborted();
    }
    exchange.res.writeHead(500, { 'content-type': 'application/json' });
    exchange.res.end(JSON.stringify(dialect.errorBody(500, ending.message)));
    return;
  }
  send();
}

/** Trailing run of messages, newest first, for which `isUser` holds; stops at the first other role. */
export function trailingUserTexts<T>(
  messages: readonly T[],
  classify: (message: T) => 'user' | 'skip' | 'stop',
  text: (message: T) => string,
): string {
  const texts: string[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as T;
    const kind = classify(message);
    if (kind === 'stop') break;
    if (kind === 'user') texts.unshift(text(message));
  }
  return texts.filter(Boolean).join('\n');
}
