// Pure: what the agent answers and asks its ACP client. The `session/prompt` answer from a turn's
// terminal (a stop reason, or a JSON-RPC error carrying the Reins error), the token usage it may carry
// (ACP requires total, input and output: all three or none), `session/request_permission` params, and
// the JSON-RPC error for anything a request handler throws.
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import {
  type ErrorInfo,
  type PermissionRequestedEvent,
  ReinsError,
  type TokenUsage,
  type TurnCompletedEvent,
} from '@reins/core';
import { boundedJson } from '../json.js';
import { acpToolKindOf, type ToolProgressMap } from './tools.js';
import {
  type PermissionOption,
  type PromptResponse,
  RPC,
  type StopReason,
  type ToolCallUpdate,
  type Usage,
} from './wire.js';

/** Option ids the bridge makes when the harness offered none (its decision then has no optionId). */
export const FALLBACK_ALLOW = 'reins:allow';
export const FALLBACK_REJECT = 'reins:reject';

/** A Reins permission request -> the `session/request_permission` params (minus the session id). */
export function permissionRequestOf(
  tools: ToolProgressMap,
  event: PermissionRequestedEvent,
): { toolCall: ToolCallUpdate; options: PermissionOption[] } {
  const toolCallId = event.itemId ?? `permission_${event.requestId}`;
  const progress = tools.get(toolCallId);
  if (progress) progress.announced = true;
  else if (event.itemId) tools.set(toolCallId, { announced: true, output: '' });
  const options: PermissionOption[] =
    event.options.length > 0
      ? event.options.map((option) => ({ optionId: option.id, name: option.label, kind: option.kind }))
      : [
          // ACP needs options to choose from; these two carry the plain allow/deny every harness takes.
          { optionId: FALLBACK_ALLOW, name: 'Allow', kind: 'allow_once' },
          { optionId: FALLBACK_REJECT, name: 'Reject', kind: 'reject_once' },
        ];
  return {
    toolCall: {
      toolCallId,
      title: event.tool.title ?? event.tool.name,
      name: event.tool.name,
      kind: acpToolKindOf(event.tool),
      status: 'pending',
      ...(event.input !== undefined ? { rawInput: boundedJson(event.input) } : {}),
    },
    options,
  };
}

// ---- the turn's answer ----

export interface AcpError {
  code: number;
  message: string;
  /** The Reins error as is, so a Reins-aware client keeps the stable code. */
  data: ErrorInfo;
}

export type PromptAnswer = { ok: true; response: PromptResponse } | { ok: false; error: AcpError };

/** A Reins error -> a JSON-RPC error: the message is the Reins message, the data the whole ErrorInfo. */
export function acpErrorOf(error: ErrorInfo): AcpError {
  const code =
    error.code === 'invalid_input'
      ? RPC.invalidParams
      : error.code === 'auth_required'
        ? RPC.authRequired
        : RPC.internalError;
  return { code, message: error.message, data: error };
}

/** Stop reasons a harness may report (Anthropic's coincide with ACP's) that ACP has a name for. */
const COMPLETED_STOP_REASONS: ReadonlySet<string> = new Set<StopReason>(['max_tokens', 'max_turn_requests', 'refusal']);

/** Token counts for PromptResponse.usage: ACP requires total, input and output, so all three or none. */
export function promptUsageOf(tokens: TokenUsage | undefined): Usage | undefined {
  if (tokens?.total === undefined || tokens.input === undefined || tokens.output === undefined) return undefined;
  return {
    totalTokens: tokens.total,
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    ...(tokens.reasoning !== undefined ? { thoughtTokens: tokens.reasoning } : {}),
    ...(tokens.cachedInput !== undefined ? { cachedReadTokens: tokens.cachedInput } : {}),
    ...(tokens.cacheWrite !== undefined ? { cachedWriteTokens: tokens.cacheWrite } : {}),
  };
}

/** A turn's terminal -> the session/prompt answer: a stop reason, or a JSON-RPC error for a failed turn. */
export function promptAnswer(event: TurnCompletedEvent): PromptAnswer {
  const outcome = event.outcome;
  switch (outcome.status) {
    case 'completed': {
      const stopReason =
        event.stopReason && COMPLETED_STOP_REASONS.has(event.stopReason)
          ? (event.stopReason as StopReason)
          : 'end_turn';
      const usage = promptUsageOf(event.usage?.turn);
      // ACP has no structured output; the agent's text carries it, and _meta keeps the parsed value.
      const meta =
        event.structuredOutput !== undefined ? { reins: { structuredOutput: event.structuredOutput } } : undefined;
      return { ok: true, response: { stopReason, ...(usage ? { usage } : {}), ...(meta ? { _meta: meta } : {}) } };
    }
    case 'cancelled':
      return { ok: true, response: { stopReason: 'cancelled' } };
    default:
      return { ok: false, error: acpErrorOf(outcome.error) };
  }
}

/** Anything a handler throws -> the JSON-RPC error the client gets (Reins errors keep their ErrorInfo). */
export function toRequestError(error: unknown, operation: string): RequestError {
  if (error instanceof RequestError) return error;
  const reins = ReinsError.from(error, 'protocol_error', { operation });
  const acp = acpErrorOf(reins.toInfo());
  return new RequestError(acp.code, acp.message, acp.data);
}

/** A setting the harness cannot change is "not available" (-32601), which ACP clients read as such. */
export function toSettingError(error: unknown, operation: string): RequestError {
  if (ReinsError.isInstance(error) && error.code === 'unsupported_capability') {
    return new RequestError(RPC.methodNotFound, error.message, error.toInfo());
  }
  return toRequestError(error, operation);
}
