// Pure: Reins errors -> Codex's TurnError and codexErrorInfo, and anything a request handler throws
// -> its JSON-RPC error. The message is Reins'; the Reins error itself rides in additionalDetails
// (`{"reins":{"code":...}}`) for clients that look, since Codex has no field for it.
import { type ErrorInfo, ReinsError } from '@reins/core';
import { RpcError } from './connection.js';
import { ParamsError } from './requests.js';
import { type CodexErrorInfo, RPC, type TurnError } from './wire.js';

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
      // Own names only: a kind named like an Object.prototype member is no Codex kind.
      return (
        (typeof kind === 'string' && Object.hasOwn(PROVIDER_ERROR_INFO, kind)
          ? PROVIDER_ERROR_INFO[kind]
          : undefined) ?? 'other'
      );
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

/** Anything a handler throws -> the JSON-RPC error the client gets (Reins errors keep their ErrorInfo as data). */
export function rpcErrorOf(error: unknown, operation: string): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ParamsError) return new RpcError(RPC.invalidParams, error.message, { field: error.field });
  const reins = ReinsError.from(error, 'protocol_error', { operation });
  const code =
    reins.code === 'invalid_input'
      ? RPC.invalidParams
      : ['protocol_error', 'process_exited', 'timeout', 'harness_unhealthy'].includes(reins.code)
        ? RPC.internalError
        : // Codex answers every refusal (unknown thread, no rollout, wrong turn) with -32600.
          RPC.invalidRequest;
  return new RpcError(code, reins.message, reins.toInfo());
}

/** Codex's own answer to a method it does not serve (-32600 "unknown variant"): "not supported here". */
export function unknownMethodError(method: string, served: string[], harness: string): RpcError {
  const expected = served.map((name) => `\`${name}\``).join(', ');
  return new RpcError(
    RPC.invalidRequest,
    `Invalid request: unknown variant \`${method}\`, expected one of ${expected}`,
    {
      method,
      reins: { code: 'unsupported_capability', harness },
    },
  );
}
