// The ACP types the bridge speaks, from the pinned SDK's generated schema (@agentclientprotocol/sdk
// 2.4.0). The unstable v1 entry is stable v1 plus fields clients already read (PromptResponse.usage);
// stable clients ignore what they do not know.
export type { AnyMessage } from '@agentclientprotocol/sdk';
export { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
export type {
  ClientCapabilities,
  ContentBlock,
  InitializeRequest,
  InitializeResponse,
  ListSessionsResponse,
  LoadSessionRequest,
  McpServer,
  NewSessionRequest,
  NewSessionResponse,
  PermissionOption,
  PlanEntry,
  PromptRequest,
  PromptResponse,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionInfo,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
  Usage,
} from '@agentclientprotocol/sdk/unstable';

/** JSON-RPC error codes the bridge answers with (JSON-RPC 2.0 and ACP's own). */
export const RPC = {
  invalidParams: -32602,
  methodNotFound: -32601,
  internalError: -32603,
  authRequired: -32000,
  resourceNotFound: -32002,
} as const;
