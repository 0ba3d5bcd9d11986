// Codex errors and turn outcomes as Reins ones. Decided from the structured codexErrorInfo, never from
// message text; total over any value (a TurnError or Turn Codex sends malformed, or with a status this
// version does not declare, still gives a valid ErrorInfo / TurnOutcome).
import {
  type ErrorInfo,
  ErrorInfoSchema,
  isRecord,
  type ProviderErrorKind,
  type TurnOutcome,
  unsupportedModelInfo,
} from '@reins/core';
import { describeValue, sendable } from './items.js';

const FALLBACK_MESSAGE = 'Codex reported an error without a message.';

/** What a Codex error carries besides its message, kept in ErrorInfo.data and retry notices. */
export function errorData(error: Record<string, unknown>): Record<string, unknown> {
  return withErrorData({}, error);
}

/** Adds errorData's keys (codexErrorInfo, additionalDetails) to `data`: no spread copies (bench/README.md). */
function withErrorData(data: Record<string, unknown>, error: Record<string, unknown>): Record<string, unknown> {
  data.codexErrorInfo = sendable(error.codexErrorInfo ?? null);
  if (typeof error.additionalDetails === 'string' && error.additionalDetails) {
    data.additionalDetails = error.additionalDetails;
  }
  return data;
}

/** The HTTP status Codex forwarded in the structured error info, if any. */
function httpStatusOf(info: unknown): number | undefined {
  if (!isRecord(info)) return undefined;
  for (const key in info) {
    if (!Object.hasOwn(info, key)) continue;
    const value = info[key];
    const status = isRecord(value) ? value.httpStatusCode : undefined;
    if (typeof status === 'number' && Number.isInteger(status)) return status;
  }
  return undefined;
}

/** Provider error kinds worth trying again. */
const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set([
  'rate_limited',
  'overloaded',
  'server_error',
  'connection_failed',
]);

function provider(
  kind: ProviderErrorKind,
  message: string,
  error: Record<string, unknown>,
  httpStatus?: number,
): ErrorInfo {
  const data = withErrorData({ kind }, error);
  if (httpStatus !== undefined) data.httpStatus = httpStatus;
  return { code: 'provider_error', message, retryable: RETRYABLE.has(kind), data };
}

/**
 * A Reins error that a Reins bridge (`reins bridge codex-app-server`) carried in additionalDetails as
 * `{"reins": {code, retryable?, data?}}`: kept whole, so Reins driving Reins loses no code.
 */
function reinsErrorIn(error: Record<string, unknown>, message: string): ErrorInfo | undefined {
  const details = error.additionalDetails;
  if (typeof details !== 'string' || !details.startsWith('{"reins"')) return undefined;
  try {
    const carried = (JSON.parse(details) as { reins?: unknown }).reins;
    const parsed = ErrorInfoSchema.safeParse({ ...(isRecord(carried) ? carried : {}), message });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Maps Codex's structured error (a TurnError: codexErrorInfo, never the message text) to a Reins error.
 * `model` names the model of the turn for unsupported_model messages.
 */
export function errorInfoOf(turnError: unknown, model?: string): ErrorInfo {
  const error = isRecord(turnError) ? turnError : {};
  const message = typeof error.message === 'string' ? error.message : FALLBACK_MESSAGE;
  const bridged = reinsErrorIn(error, message);
  if (bridged) return bridged;
  const info = error.codexErrorInfo;
  const status = httpStatusOf(info);
  if (status !== undefined) {
    if (status === 401 || status === 403) {
      const data = errorData(error);
      data.httpStatus = status;
      return { code: 'auth_required', message, data };
    }
    if (status === 429) return provider('rate_limited', message, error, status);
    if (status === 529 || status === 503) return provider('overloaded', message, error, status);
    if (status >= 500) return provider('server_error', message, error, status);
    if (status === 400) return provider('bad_request', message, error, status);
  }
  if (typeof info === 'string') {
    switch (info) {
      case 'modelNotFound':
        // The info without a ReinsError: its stack capture cost more than the rest of the frame.
        return unsupportedModelInfo(model ?? 'unknown', message, errorData(error));
      case 'unauthorized':
        return { code: 'auth_required', message, data: errorData(error) };
      case 'rateLimitExceeded':
      case 'usageLimitExceeded':
        return provider('rate_limited', message, error);
      case 'serverOverloaded':
        return provider('overloaded', message, error);
      case 'internalServerError':
        return provider('server_error', message, error);
      case 'contextWindowExceeded':
        return provider('context_window_exceeded', message, error);
      case 'badRequest':
        return provider('bad_request', message, error);
      default:
        break;
    }
  }
  if (isRecord(info)) {
    if ('responseStreamDisconnected' in info || 'responseStreamConnectionFailed' in info) {
      return provider('connection_failed', message, error);
    }
    if ('httpConnectionFailed' in info) return provider('connection_failed', message, error);
  }
  return provider('unknown', message, error);
}

/**
 * The Reins outcome of a finished Codex turn (the `turn` of turn/completed). A status this Codex version
 * does not declare (0.169.0: completed, interrupted, failed, inProgress) cannot be called a success: the
 * turn fails with protocol_error naming it.
 */
export function outcomeOf(turn: unknown, model?: string): TurnOutcome {
  if (!isRecord(turn)) {
    return {
      status: 'failed',
      error: { code: 'protocol_error', message: 'Codex completed a turn with no turn data.' },
    };
  }
  switch (turn.status) {
    case 'completed':
      return { status: 'completed' };
    case 'interrupted':
      return { status: 'cancelled' };
    case 'failed':
      return {
        status: 'failed',
        error: isRecord(turn.error)
          ? errorInfoOf(turn.error, model)
          : { code: 'provider_error', message: 'Codex reported the turn as failed without an error.' },
      };
    case 'inProgress':
      return {
        status: 'failed',
        error: { code: 'protocol_error', message: 'Codex completed a turn whose status is still inProgress.' },
      };
    default:
      return {
        status: 'failed',
        error: {
          code: 'protocol_error',
          message: `Codex completed the turn with status ${describeValue(turn.status)}, which this Reins does not know (a newer Codex?).`,
          data: { status: typeof turn.status === 'string' ? turn.status.slice(0, 200) : null },
        },
      };
  }
}
