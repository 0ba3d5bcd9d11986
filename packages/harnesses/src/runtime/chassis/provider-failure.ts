// Provider failures, one set of rules for every adapter: what an HTTP status and the provider's words
// mean (rate limited, overloaded, server error, context window, bad request), and which Reins error a
// failure becomes (404 or "model not found" -> unsupported_model, 401/403 -> auth_required, the rest
// provider_error with the kind in data). Adapters only find the status and the words in their own
// frames, with the harness version they were seen on, and hand them here; words only one harness uses
// come as data (ProviderWords), never as a second set of rules.
import { type ErrorInfo, type ProviderErrorKind, unsupportedModelError } from '@reins/core';

export interface ProviderFailure {
  kind: ProviderErrorKind;
  status?: number;
  /** The provider's (or harness's) own words. */
  message: string;
}

/** The first HTTP error status (4xx/5xx) named in a text, if any. */
export function statusIn(text: string): number | undefined {
  const match = /\b([45]\d\d)\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** A harness's own words for a kind, beside the shared ones (e.g. Pi's "context overflow"). */
export type ProviderWords = Partial<Record<ProviderErrorKind, RegExp>>;

/** What a status and the provider's words say went wrong. */
export function providerKindOf(status: number | undefined, text: string, words: ProviderWords = {}): ProviderErrorKind {
  const says = (kind: ProviderErrorKind, shared?: RegExp) => shared?.test(text) || words[kind]?.test(text) === true;
  if (status === 429 || says('rate_limited', /rate.?limit|too many requests/i)) return 'rate_limited';
  if (status === 529 || status === 503 || says('overloaded', /overloaded/i)) return 'overloaded';
  if ((status !== undefined && status >= 500) || says('server_error')) return 'server_error';
  if (says('context_window_exceeded', /context.?(window|length)|too long|too many tokens|maximum context/i)) {
    return 'context_window_exceeded';
  }
  if (status !== undefined && status >= 400) return 'bad_request';
  if (says('connection_failed', /ECONNREFUSED|ECONNRESET|ETIMEDOUT|fetch failed|socket hang up|network error/i)) {
    return 'connection_failed';
  }
  return 'unknown';
}

/** A provider failure from a status and a text, with the kind read from both. */
export function providerFailureOf(status: number | undefined, message: string): ProviderFailure {
  return { kind: providerKindOf(status, message), ...(status !== undefined ? { status } : {}), message };
}

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set([
  'rate_limited',
  'overloaded',
  'server_error',
  'connection_failed',
]);

/** Whether trying the same turn again may succeed (the provider was busy, failing or unreachable). */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/**
 * A provider failure as a turn error. A 404 from the model endpoint, or words saying the model was not
 * found, is `unsupported_model` (its message carries the words "unsupported model" and names the model
 * when known); 401/403 is `auth_required`; everything else `provider_error` with the kind in data.
 */
export function providerError(failure: ProviderFailure, data: Record<string, unknown> = {}, model?: string): ErrorInfo {
  const details = {
    kind: failure.kind,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...data,
  };
  if (failure.status === 404 || /\bmodels?\b.*\b(not found|does not exist)/i.test(failure.message)) {
    const info = unsupportedModelError(model ?? 'unknown', failure.message).toInfo();
    return { ...info, data: { ...info.data, ...details } };
  }
  if (failure.status === 401 || failure.status === 403) {
    return {
      code: 'auth_required',
      message: `The model provider refused the credentials: ${failure.message}`,
      data: details,
    };
  }
  return {
    code: 'provider_error',
    message: `The model provider failed: ${failure.message}`,
    retryable: isRetryableKind(failure.kind),
    data: details,
  };
}
