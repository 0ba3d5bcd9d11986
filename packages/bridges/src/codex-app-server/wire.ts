// The Codex app-server types the bridge speaks: the generated wire of the pinned Codex (`codex
// app-server generate-ts`, checked in under packages/harnesses and drift-tested there), re-exported by
// name. Nothing is relaxed: every message the bridge sends has the generated shape, and the tests
// validate them against the JSON Schema the pinned Codex generates.
import type { CodexAppServerWire as Wire } from '@reins/harnesses';

/**
 * The Codex version whose protocol the bridge speaks: the version of the generated wire types
 * (packages/harnesses/src/codex/wire/generated/VERSION; a unit test fails when the two part).
 */
export const CODEX_PROTOCOL_VERSION = '0.171.0';

export type AskForApproval = Wire.v2.AskForApproval;
export type SandboxPolicy = Wire.v2.SandboxPolicy;
export type CodexErrorInfo = Wire.v2.CodexErrorInfo;
export type CommandExecutionRequestApprovalParams = Wire.v2.CommandExecutionRequestApprovalParams;
export type FileChangeRequestApprovalParams = Wire.v2.FileChangeRequestApprovalParams;
export type FileUpdateChange = Wire.v2.FileUpdateChange;
export type FuzzyFileSearchResponse = Wire.FuzzyFileSearchResponse;
export type FuzzyFileSearchResult = Wire.FuzzyFileSearchResult;
export type GetAccountResponse = Wire.v2.GetAccountResponse;
export type InitializeResponse = Wire.InitializeResponse;
/** serde_json's JsonValue (the generated index does not export it by name). */
export type JsonValue = NonNullable<Wire.v2.TurnStartParams['outputSchema']>;
export type ListMcpServerStatusResponse = Wire.v2.ListMcpServerStatusResponse;
/** Codex's McpServerStatus (Reins' own McpServerStatus is the harness's report). */
export type CodexMcpServerStatus = Wire.v2.McpServerStatus;
export type McpServerConnectionStatus = Wire.v2.McpServerConnectionStatus;
export type McpServerStartupState = Wire.v2.McpServerStartupState;
export type Model = Wire.v2.Model;
export type ModelListResponse = Wire.v2.ModelListResponse;
export type ServerNotification = Wire.ServerNotification;
export type SessionSource = Wire.v2.SessionSource;
export type SortDirection = Wire.v2.SortDirection;
export type Thread = Wire.v2.Thread;
export type ThreadItem = Wire.v2.ThreadItem;
export type ThreadItemsListResponse = Wire.v2.ThreadItemsListResponse;
export type ThreadForkResponse = Wire.v2.ThreadForkResponse;
export type ThreadListResponse = Wire.v2.ThreadListResponse;
export type ThreadLoadedListResponse = Wire.v2.ThreadLoadedListResponse;
export type ThreadReadResponse = Wire.v2.ThreadReadResponse;
export type ThreadResumeResponse = Wire.v2.ThreadResumeResponse;
export type ThreadSortKey = Wire.v2.ThreadSortKey;
export type ThreadSourceKind = Wire.v2.ThreadSourceKind;
export type ThreadStartResponse = Wire.v2.ThreadStartResponse;
export type ThreadStatus = Wire.v2.ThreadStatus;
export type ThreadTokenUsage = Wire.v2.ThreadTokenUsage;
export type ThreadTurnsListResponse = Wire.v2.ThreadTurnsListResponse;
export type ThreadUnsubscribeResponse = Wire.v2.ThreadUnsubscribeResponse;
export type TokenUsageBreakdown = Wire.v2.TokenUsageBreakdown;
export type Turn = Wire.v2.Turn;
export type TurnError = Wire.v2.TurnError;
export type TurnItemsView = Wire.v2.TurnItemsView;
export type TurnPlanStep = Wire.v2.TurnPlanStep;
export type TurnStartResponse = Wire.v2.TurnStartResponse;
export type TurnStatus = Wire.v2.TurnStatus;
export type TurnSteerResponse = Wire.v2.TurnSteerResponse;
export type UserInput = Wire.v2.UserInput;

/** One ThreadItem variant, by its `type`. */
export type ThreadItemOf<T extends ThreadItem['type']> = Extract<ThreadItem, { type: T }>;

/** A server notification the bridge sends. */
export type BridgeNotification = ServerNotification;

/** The server -> client requests the bridge makes (approvals), with their params. */
export type ApprovalRequest =
  | { method: 'item/commandExecution/requestApproval'; params: CommandExecutionRequestApprovalParams }
  | { method: 'item/fileChange/requestApproval'; params: FileChangeRequestApprovalParams };

/** JSON-RPC error codes the bridge answers with (JSON-RPC 2.0; Codex uses -32600 for refusals). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;
