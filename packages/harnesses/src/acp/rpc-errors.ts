// An ACP agent's JSON-RPC failures as ReinsErrors with stable codes: a request past its deadline is
// `timeout`, an "Authentication required" answer `auth_required` (with the agent's auth methods),
// method-not-found `unsupported_capability`, any other error answer `protocol_error` with the RPC code,
// message and data kept. Pure.
import { RequestError } from '@agentclientprotocol/sdk';
import { type HarnessId, ReinsError } from '@reins/core';
import { RPC } from './wire.js';

/** An "Authentication required" answer: ACP's -32000, or the words (Copilot 1.0.102 says them with -32000). */
export function isAuthRequired(error: unknown): boolean {
  if (!(error instanceof RequestError) && !ReinsError.isInstance(error)) return false;
  const code = error instanceof RequestError ? error.code : (error.data?.rpcCode as number | undefined);
  return code === RPC.authRequired || /auth(entication)? required/i.test(error.message);
}

export interface RpcFailureContext {
  harness: HarnessId;
  /** For messages: 'gemini --acp'. */
  label: string;
  /** The auth methods the agent listed in initialize (an auth_required error names them). */
  authMethods: { id: string; name: string; description?: string | null }[];
  /** The request's deadline: aborted when it passed. */
  signal: AbortSignal | undefined;
  timeoutMs: number;
}

/** A failed request to the agent -> the ReinsError Reins reports for it. */
export function rpcFailure(method: string, error: unknown, context: RpcFailureContext): ReinsError {
  const { harness, label, signal, timeoutMs } = context;
  if (signal?.aborted && error instanceof RequestError && error.code === RPC.requestCancelled) {
    return new ReinsError('timeout', `${label} did not answer ${method} within ${timeoutMs} ms.`, {
      harness,
      operation: method,
    });
  }
  if (error instanceof RequestError) {
    const data = {
      rpcCode: error.code,
      rpcMessage: error.message,
      ...(error.data !== undefined ? { rpcData: error.data } : {}),
    };
    if (isAuthRequired(error)) {
      return new ReinsError(
        'auth_required',
        `${label} needs authentication (${error.message}). Log in with the agent itself, or configure one of its auth methods: ${context.authMethods.map((m) => m.id).join(', ') || 'none listed'}.`,
        { harness, operation: method, data: { ...data, authMethods: context.authMethods } },
      );
    }
    if (error.code === RPC.methodNotFound) {
      return new ReinsError('unsupported_capability', `${label} does not implement ${method}.`, {
        harness,
        operation: method,
        data,
      });
    }
    return new ReinsError('protocol_error', `${label} answered ${method} with error ${error.code}: ${error.message}`, {
      harness,
      operation: method,
      data,
    });
  }
  return ReinsError.from(error, 'protocol_error', { harness, operation: method });
}
