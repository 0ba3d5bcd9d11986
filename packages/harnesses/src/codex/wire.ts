// The Codex app-server wire types this adapter uses, re-exported from the output of
// `codex app-server generate-ts` for the pinned Codex (see wire/generated/VERSION; regenerate with
// packages/harnesses/scripts/generate-codex-wire.mjs; wire.real.test.ts checks for drift).
// Nothing here is written by hand except the few aliases that name a union member.
export type { ClientInfo } from './wire/generated/ClientInfo.js';
export type { InitializeCapabilities } from './wire/generated/InitializeCapabilities.js';
export type { InitializeParams } from './wire/generated/InitializeParams.js';
export type { InitializeResponse } from './wire/generated/InitializeResponse.js';
export type { ReasoningEffort } from './wire/generated/ReasoningEffort.js';
export type { ReasoningSummary } from './wire/generated/ReasoningSummary.js';
export type { ServerNotification } from './wire/generated/ServerNotification.js';
export type { ServerRequest } from './wire/generated/ServerRequest.js';
export type { JsonValue } from './wire/generated/serde_json/JsonValue.js';
export type {
  AccountLoginCompletedNotification,
  AskForApproval,
  CodexErrorInfo,
  CommandAction,
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResponse,
  ErrorNotification,
  FileChangeApprovalDecision,
  FileChangeRequestApprovalParams,
  FileChangeRequestApprovalResponse,
  FileUpdateChange,
  GetAccountParams,
  GetAccountResponse,
  ListMcpServerStatusParams,
  ListMcpServerStatusResponse,
  LoginAccountParams,
  LoginAccountResponse,
  McpServerStatus as CodexMcpServerStatus,
  McpServerStatusUpdatedNotification,
  Model,
  ModelListParams,
  ModelListResponse,
  SandboxMode,
  Thread,
  ThreadForkParams,
  ThreadForkResponse,
  ThreadItem,
  ThreadItemsListParams,
  ThreadItemsListResponse,
  ThreadListParams,
  ThreadListResponse,
  ThreadResumeParams,
  ThreadResumeResponse,
  ThreadStartParams,
  ThreadStartResponse,
  ThreadStatus,
  ThreadTokenUsage,
  ThreadTurnsListParams,
  ThreadTurnsListResponse,
  TokenUsageBreakdown,
  Turn,
  TurnError,
  TurnInterruptParams,
  TurnPlanStep,
  TurnStartParams,
  TurnStartResponse,
  TurnStatus,
  TurnSteerParams,
  TurnSteerResponse,
  UserInput,
} from './wire/generated/v2/index.js';
export type { WebSearchItem } from './wire/generated/WebSearchItem.js';

import type { ServerNotification } from './wire/generated/ServerNotification.js';
import type { ServerRequest } from './wire/generated/ServerRequest.js';
import type { ThreadItem } from './wire/generated/v2/index.js';

export type NotificationMethod = ServerNotification['method'];
/** The params of one server notification, by method. */
export type NotificationParams<M extends NotificationMethod> = Extract<ServerNotification, { method: M }>['params'];
export type ServerRequestMethod = ServerRequest['method'];
export type ServerRequestParams<M extends ServerRequestMethod> = Extract<ServerRequest, { method: M }>['params'];
export type ThreadItemType = ThreadItem['type'];
/** One ThreadItem variant, by its `type`. */
export type ThreadItemOf<T extends ThreadItemType> = Extract<ThreadItem, { type: T }>;
