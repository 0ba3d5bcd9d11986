// ACP wire types. The protocol types come from the SDK's generated schema types (pinned
// @agentclientprotocol/sdk 2.4.0, unstable v1 = stable v1 plus fields real agents already send,
// such as PromptResponse.usage); this file only adds what the agents send outside that schema.
import type {
  AgentCapabilities,
  AuthMethod,
  InitializeResponse,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
} from '@agentclientprotocol/sdk/unstable';

export { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
export type {
  AgentCapabilities,
  AuthMethod,
  ContentBlock,
  InitializeResponse,
  ListSessionsResponse,
  PermissionOption,
  PlanEntry,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionInfo,
  SessionModeState,
  SessionNotification,
  SessionUpdate,
  StopReason,
  ToolCall,
  ToolCallContent,
  ToolCallUpdate,
  ToolKind,
  Usage,
} from '@agentclientprotocol/sdk/unstable';

/** The `sessionUpdate` discriminator values this SDK version knows. */
export type SessionUpdateKind = SessionUpdate['sessionUpdate'];

/**
 * The pre-config-option model state that Gemini CLI 0.61, Qwen Code 0.24, Copilot 1.0.102 and
 * claude-agent-acp 0.23 still return from session/new and session/load (`models`). It left the
 * schema in SDK 2.x, so it is typed here.
 */
export interface SessionModelState {
  currentModelId: string;
  availableModels: { modelId: string; name?: string; description?: string | null }[];
}

/** What session/new, session/load and session/resume answer, with the out-of-schema `models`. */
export interface SessionSetupResponse {
  sessionId?: string;
  modes?: SessionModeState | null;
  configOptions?: SessionConfigOption[] | null;
  models?: SessionModelState | null;
  _meta?: Record<string, unknown> | null;
}

/** `session/set_model` params: in no 2.4.0 schema, but accepted by gemini, qwen, copilot and claude-agent-acp. */
export interface SetModelRequest {
  sessionId: string;
  modelId: string;
}

export type { AuthMethod as AcpAuthMethod };
export type AcpInitializeResponse = InitializeResponse;
export type AcpAgentCapabilities = AgentCapabilities;

/** JSON-RPC error codes ACP uses. */
export const RPC = {
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  authRequired: -32000,
  resourceNotFound: -32002,
  requestCancelled: -32800,
} as const;
