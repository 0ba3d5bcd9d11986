// Pure: Reins errors -> Codex's TurnError and codexErrorInfo. The message is Reins'; the Reins error
// itself rides in additionalDetails (`{"reins":{"code":...}}`) for clients that look, since Codex has
// no field for it.
import type { ErrorInfo } from '@reins/core';
import type { CodexErrorInfo, TurnError } from './wire.js';

const PROVIDER_ERROR_INFO: Partial<Record<string, CodexErrorInfo>> = {
  // 429 from the provider: a rate limit, not the plan's usage limit (usageLimitExceeded).
  rate_limited: 'rateLimitExceeded',
  overloaded: 'serverOverloaded',
  server_error: 'internalServerError',
  context_window_exceeded: 'contextWindowExceeded',
  bad_request: 'badRequest',
  connection_failed: { httpConnectionFailed: { httpStatusCode: null } },
};

/** The Reins error's structured kind -> Codex's codexErrorInfo; `other` where Codex has no such kind. */
export function codexErrorInfoOf(error: ErrorInfo): CodexErrorInfo {
  switch (error.code) {
    case 'unsupported_model':
      return 'modelNotFound';
    case 'auth_required':
      return 'unauthorized';
    case 'provider_error': {
      const kind = error.data?.kind;
      return (typeof kind === 'string' ? PROVIDER_ERROR_INFO[kind] : undefined) ?? 'other';
    }
    default:
      return 'other';
  }
}

/** A Reins error as a Codex TurnError (see the header). */
export function turnErrorOf(error: ErrorInfo): TurnError {
  const reins = {
    code: error.code,
    ...(error.retryable !== undefined ? { retryable: error.retryable } : {}),
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
  let additionalDetails: string;
  try {
    additionalDetails = JSON.stringify({ reins });
  } catch {
    // data a harness supplied that JSON cannot hold: the code alone still says what happened.
    additionalDetails = JSON.stringify({ reins: { code: error.code } });
  }
  return {
    message: error.message,
    codexErrorInfo: codexErrorInfoOf(error),
    additionalDetails,
    misalignment: null,
  };
}
