// OpenClaw gateway WebSocket protocol v4 (openclaw 2026.9.6), the members Reins reads. The
// gateway's machine-readable schema ships in @openclaw/gateway-protocol (protocol.schema.json), which
// the openclaw CLI package does not carry; these types mirror docs/gateway/protocol/*.md of 2026.9.6
// and the frames recorded in fixtures/. Frames are validated with zod where they arrive.
import { z } from 'zod';

export const OPENCLAW_PROTOCOL_VERSION = 4;

export interface GatewayRequest {
  type: 'req';
  id: string;
  method: string;
  params?: unknown;
}

export interface GatewayError {
  code: string;
  message: string;
  retryable?: boolean;
  retryAfterMs?: number;
  details?: Record<string, unknown>;
}

export interface GatewayResponse {
  type: 'res';
  id: string;
  ok: boolean;
  payload?: unknown;
  error?: GatewayError;
}

export interface GatewayEvent {
  type: 'event';
  event: string;
  payload?: unknown;
  seq?: number;
}

export type GatewayFrame = GatewayRequest | GatewayResponse | GatewayEvent;

export const GatewayFrameSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('req'), id: z.string(), method: z.string(), params: z.unknown().optional() }),
  z.looseObject({
    type: z.literal('res'),
    id: z.string(),
    ok: z.boolean(),
    payload: z.unknown().optional(),
    error: z
      .looseObject({
        code: z.string(),
        message: z.string(),
        retryable: z.boolean().optional(),
        retryAfterMs: z.number().optional(),
        details: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  }),
  z.looseObject({
    type: z.literal('event'),
    event: z.string(),
    payload: z.unknown().optional(),
    seq: z.number().optional(),
  }),
]);

/** `chat` event payload: the transcript view of one run. */
export interface ChatEventPayload {
  runId: string;
  sessionKey: string;
  agentId?: string;
  seq?: number;
  state: 'status' | 'delta' | 'final' | 'aborted' | 'error' | string;
  phase?: string;
  deltaText?: string;
  replace?: boolean;
  stopReason?: string;
  message?: ChatMessage;
  errorMessage?: string;
  errorKind?: string;
  errorDetail?: {
    provider?: string;
    model?: string;
    failoverReason?: string;
    providerRuntimeFailureKind?: string;
    providerErrorType?: string;
    httpStatus?: number;
    providerErrorMessagePreview?: string;
  };
}

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string; [key: string]: unknown }[];
  timestamp?: number;
  usage?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `agent` event payload: the runtime view of one run, split into streams. */
export interface AgentEventPayload {
  runId: string;
  sessionKey?: string;
  sessionId?: string;
  agentId?: string;
  stream: 'lifecycle' | 'run_status' | 'assistant' | 'item' | 'command_output' | 'usage' | 'tool' | string;
  data?: Record<string, unknown>;
  seq?: number;
  ts?: number;
}

export interface HelloOk {
  type: 'hello-ok';
  protocol: number;
  server?: { version?: string; connId?: string };
  features?: { methods?: string[]; events?: string[] };
}
