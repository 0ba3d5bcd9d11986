// The JSON-RPC 2.0 envelope the daemon speaks (one JSON message per WebSocket text frame) and how a
// Reins failure travels in it: the JSON-RPC error's `data` is the Reins ErrorInfo.
import { type ErrorCode, type ErrorInfo, ErrorInfoSchema } from '@reins/core';
import { z } from 'zod';

export type RequestId = string | number;
const RequestIdSchema = z.union([z.string(), z.number()]);

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}
export interface RpcErrorObject {
  code: number;
  message: string;
  data: ErrorInfo;
}
export type RpcResponse =
  | { jsonrpc: '2.0'; id: RequestId | null; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId | null; error: RpcErrorObject };

/** What a daemon accepts: a request (with id) or a notification (without). */
export const RpcIncomingSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema.optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

/** What a client accepts: a response to one of its requests, or a notification. */
export const RpcResponseSchema = z.union([
  z.object({
    jsonrpc: z.literal('2.0'),
    id: RequestIdSchema.nullable(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  }),
  z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema, result: z.unknown() }),
]);
export const RpcNotificationSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

/** JSON-RPC error numbers; the Reins `data.code` is what programs should branch on. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Any Reins failure (see data.code). */
  reins: -32000,
  authRequired: -32001,
} as const;

export function rpcErrorNumber(code: ErrorCode): number {
  if (code === 'auth_required') return RPC_ERROR.authRequired;
  if (code === 'invalid_input') return RPC_ERROR.invalidParams;
  return RPC_ERROR.reins;
}

/** Reads the Reins ErrorInfo out of a JSON-RPC error (undefined when it carries none). */
export function errorInfoOf(data: unknown): ErrorInfo | undefined {
  const parsed = ErrorInfoSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

/** The fields a zod failure names, in one line: `spec.cwd: Too small: expected ...`. */
export function issuesSentence(error: z.ZodError, root = 'params'): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.length > 0 ? `${root}.${issue.path.map(String).join('.')}` : root;
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return `${parts.join('; ')}${more}`;
}

/** The sentence an `invalid_input` for bad params carries. */
export function describeInvalidParams(error: z.ZodError, method: string): string {
  return `Invalid params for ${method}: ${issuesSentence(error)}.`;
}
