// A turn's end in stream-json: the `result` frame's usage and outcome, and the CLI's synthetic provider
// errors, as Reins values. Pure and total over any value (wrong-typed or negative counts are absent).
//
// Facts (Claude Code 2.1.197; 2.1.332 the same unless noted): `result` is exactly one per user turn. Its
// `usage` counts this turn; `modelUsage` and `total_cost_usd` are cumulative over the process (not the
// turn). 2.1.332: `usage` is the main loop only, `model_usage_since_last_result` counts the whole turn per
// model (subagents too).
import { type ErrorInfo, type TokenUsage, type Usage, unsupportedModelInfo } from '@reins/core';
import type { TranslationState } from './state.js';
import { count, isObject, num, shown } from './values.js';
import type { WireResult, WireUsage } from './wire.js';

/** Prompt size of one API call (input + cache), the context in use. */
export function promptTokens(usage: WireUsage | null | undefined): number | undefined {
  const input = isObject(usage) ? count(usage.input_tokens) : undefined;
  if (input === undefined || !usage) return undefined;
  return input + (count(usage.cache_read_input_tokens) ?? 0) + (count(usage.cache_creation_input_tokens) ?? 0);
}

/** Maps the CLI's synthetic-error kinds (SDKAssistantMessageError) to Reins errors. */
export function mapAssistantError(
  kind: string,
  text: string,
  apiErrorStatus: number | undefined,
  model: string | undefined,
): ErrorInfo {
  // The data objects are literals with their keys in order (harnessError, status, kind): a spread copy
  // that gains a key is slow on Node 20 (the bench's translate figure).
  switch (kind) {
    case 'authentication_failed':
      return {
        code: 'auth_required',
        message: text || 'The provider refused the credentials.',
        data: errorData(kind, apiErrorStatus, undefined),
      };
    case 'rate_limit':
      return {
        code: 'provider_error',
        message: text,
        retryable: true,
        data: errorData(kind, apiErrorStatus, 'rate_limited'),
      };
    case 'server_error':
      return {
        code: 'provider_error',
        message: text,
        retryable: true,
        data: errorData(kind, apiErrorStatus, apiErrorStatus === 529 ? 'overloaded' : 'server_error'),
      };
    case 'model_not_found': {
      // 2.1.197: "There's an issue with the selected model (NAME). It may not exist ..."
      const named = /selected model \(([^)]+)\)/.exec(text)?.[1] ?? model ?? 'unknown';
      // The info without a ReinsError: no stack captured per frame.
      return unsupportedModelInfo(named, text, errorData(kind, apiErrorStatus, undefined));
    }
    case 'billing_error':
      return { code: 'provider_error', message: text, data: errorData(kind, apiErrorStatus, 'unknown') };
    case 'invalid_request':
      return { code: 'provider_error', message: text, data: errorData(kind, apiErrorStatus, 'bad_request') };
    default: {
      const providerKind = /prompt is too long|context window/i.test(text)
        ? 'context_window_exceeded'
        : apiErrorStatus === 400
          ? 'bad_request'
          : 'unknown';
      return { code: 'provider_error', message: text, data: errorData(kind, apiErrorStatus, providerKind) };
    }
  }
}

/** `data` of a synthetic provider error: the harness's kind, the HTTP status when known, the Reins kind. */
function errorData(
  harnessError: string,
  status: number | undefined,
  kind: string | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = { harnessError };
  if (status !== undefined) data.status = status;
  if (kind !== undefined) data.kind = kind;
  return data;
}

function tokenUsage(usage: WireUsage | undefined): TokenUsage | undefined {
  const input = isObject(usage) ? count(usage.input_tokens) : undefined;
  if (input === undefined || !usage) return undefined;
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const result: TokenUsage = {
    // Anthropic's input_tokens exclude the cached parts; Reins' input is the whole prompt.
    input: input + (cacheRead ?? 0) + (cacheWrite ?? 0),
  };
  if (cacheRead !== undefined) result.cachedInput = cacheRead;
  if (cacheWrite !== undefined) result.cacheWrite = cacheWrite;
  const output = count(usage.output_tokens);
  if (output !== undefined) result.output = output;
  return result;
}

/** Usage of a `result` frame: this turn's tokens, process totals, context window and cost. */
export function resultUsage(state: TranslationState, result: WireResult): Usage | undefined {
  const usage: Usage = {};
  // 2.1.332 counts the turn per model, subagents included; `usage` is the main loop only.
  const turn = modelTokens(result.model_usage_since_last_result) ?? tokenUsage(result.usage);
  if (turn) usage.turn = turn;
  // The models reported, the one in use, the first and their summed tokens, in one pass over the keys
  // (no entry arrays, no second walk: the bench's translate figure).
  const modelUsage = result.modelUsage;
  const byModel = isObject(modelUsage) ? modelUsage : undefined;
  let models = 0;
  let first: unknown;
  let inUse: unknown;
  let inUseFound = false;
  let total: TokenUsage | undefined;
  for (const name in byModel) {
    if (!Object.hasOwn(byModel, name)) continue;
    const model = byModel[name];
    if (++models === 1) first = model;
    if (!inUseFound && name === state.facts.model) {
      inUseFound = true;
      inUse = model;
    }
    if (isObject(model)) total = addModelTokens(total, model);
  }
  if (models > 0) {
    if (total) usage.total = total;
    // The window of the model in use, else of the only model reported.
    const current = inUseFound ? inUse : models === 1 ? first : undefined;
    const window = isObject(current) ? count(current.contextWindow) : undefined;
    if (window !== undefined || state.contextUsed !== undefined) {
      // Assignments, not spreads of conditional literals (slow on Node 20: the bench's translate figure).
      const context: NonNullable<Usage['context']> = {};
      if (state.contextUsed !== undefined) context.used = state.contextUsed;
      if (window !== undefined) context.window = window;
      usage.context = context;
    }
  }
  const cost = count(result.total_cost_usd);
  if (cost !== undefined) usage.costUsd = { amount: cost, currency: 'USD', source: 'provider' };
  // Every field set is an object: no key list needed to know whether any is.
  return usage.turn || usage.total || usage.context || usage.costUsd ? usage : undefined;
}

/** Tokens summed over a per-model usage map (modelUsage, model_usage_since_last_result); undefined when empty. */
function modelTokens(byModel: WireResult['modelUsage']): TokenUsage | undefined {
  if (!isObject(byModel)) return undefined;
  let total: TokenUsage | undefined;
  for (const name in byModel) {
    const model = byModel[name];
    if (Object.hasOwn(byModel, name) && isObject(model)) total = addModelTokens(total, model);
  }
  return total;
}

/** `total` (made on the first model) with one model's tokens of a per-model usage map added. */
function addModelTokens(total: TokenUsage | undefined, model: Record<string, unknown>): TokenUsage {
  const sum = total ?? {};
  const cacheRead = count(model.cacheReadInputTokens) ?? 0;
  const cacheWrite = count(model.cacheCreationInputTokens) ?? 0;
  sum.input = (sum.input ?? 0) + (count(model.inputTokens) ?? 0) + cacheRead + cacheWrite;
  sum.cachedInput = (sum.cachedInput ?? 0) + cacheRead;
  sum.cacheWrite = (sum.cacheWrite ?? 0) + cacheWrite;
  sum.output = (sum.output ?? 0) + (count(model.outputTokens) ?? 0);
  return sum;
}

/** The outcome of a turn from its `result` frame and what the turn showed before it. */
export function resultOutcome(state: TranslationState, result: WireResult): ErrorInfo | 'completed' | 'cancelled' {
  // Most results carry no errors: then no filtered copy, join or scan (the bench's translate figure), and
  // a turn that completed builds neither the list nor the detail.
  // Each field read once: results come in many shapes, so each read is a megamorphic lookup.
  const listed = result.errors;
  const errors = Array.isArray(listed) && listed.length > 0 ? listed.filter((e) => typeof e === 'string') : undefined;
  if (errors?.some((error) => /No conversation found/i.test(error))) {
    return {
      code: 'resume_failed',
      message: `${state.options.harnessName} could not resume the conversation: ${resultDetail(errors, result)}`,
      data: { subtype: shown(result.subtype, 'unknown') },
    };
  }
  const terminalReason = result.terminal_reason;
  if (state.interruptRequested || terminalReason === 'aborted_streaming' || terminalReason === 'aborted_tools') {
    return 'cancelled';
  }
  const subtype = result.subtype;
  if (subtype === 'success' && !result.is_error) return 'completed';
  if (state.turnError) return state.turnError;
  const detail = resultDetail(errors, result);
  if (subtype === 'error_max_structured_output_retries') {
    return {
      code: 'structured_output_invalid',
      message: `${state.options.harnessName} gave up producing output that matches the schema: ${detail}`,
      data: { subtype, errors: errors ?? [] },
    };
  }
  const status = num(result.api_error_status);
  if (status !== undefined) {
    return {
      code: 'provider_error',
      message: detail || `The provider answered ${status}.`,
      data: { status, kind: status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'unknown' },
    };
  }
  return {
    code: 'harness_unhealthy',
    message: `${state.options.harnessName} ended the turn with ${shown(subtype, 'an unreadable subtype')}${detail ? `: ${detail}` : ''}`,
    data: { subtype: shown(subtype, 'unknown'), errors: errors ?? [] },
  };
}

/** What a failed result says: its string errors joined, else its result text. */
function resultDetail(errors: string[] | undefined, result: WireResult): string {
  return (
    (errors !== undefined && errors.length > 0 ? errors.join('; ') : '') ||
    (typeof result.result === 'string' ? result.result : '')
  );
}
