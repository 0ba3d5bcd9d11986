// The Codex app-server types the bridge speaks: the generated wire of the pinned Codex (0.169.0,
// `codex app-server generate-ts`, checked in under packages/harnesses and drift-tested there),
// re-exported by name. The one hand-written shape is the token breakdown: Codex requires every count,
// Reins sends only those the harness reported (absent is not zero), so its fields are optional.
import type { CodexAppServerWire as Wire } from '@reins/harnesses';

/** The Codex version whose protocol the bridge speaks. */
export const CODEX_PROTOCOL_VERSION = '0.169.0';

export type AskForApproval = Wire.v2.AskForApproval;
export type CodexErrorInfo = Wire.v2.CodexErrorInfo;
export type CommandExecutionApprovalDecision = Wire.v2.CommandExecutionApprovalDecision;
export type CommandExecutionRequestApprovalParams = Wire.v2.CommandExecutionRequestApprovalParams;
export type CommandExecutionRequestApprovalResponse = Wire.v2.CommandExecutionRequestApprovalResponse;
export type FileChangeRequestApprovalParams = Wire.v2.FileChangeRequestApprovalParams;
export type FileChangeRequestApprovalResponse = Wire.v2.FileChangeRequestApprovalResponse;
export type FileUpdateChange = Wire.v2.FileUpdateChange;
export type GetAccountResponse = Wire.v2.GetAccountResponse;
export type InitializeParams = Wire.InitializeParams;
export type InitializeResponse = Wire.InitializeResponse;
/** serde_json's JsonValue (the generated index does not export it by name). */
export type JsonValue = NonNullable<Wire.v2.TurnStartParams['outputSchema']>;
export type Model = Wire.v2.Model;
export type ModelListResponse = Wire.v2.ModelListResponse;
export type SandboxMode = Wire.v2.SandboxMode;
export type ServerNotification = Wire.ServerNotification;
export type Thread = Wire.v2.Thread;
export type ThreadItem = Wire.v2.ThreadItem;
export type ThreadItemsListResponse = Wire.v2.ThreadItemsListResponse;
export type ThreadListResponse = Wire.v2.ThreadListResponse;
export type ThreadResumeParams = Wire.v2.ThreadResumeParams;
export type ThreadResumeResponse = Wire.v2.ThreadResumeResponse;
export type ThreadStartParams = Wire.v2.ThreadStartParams;
export type ThreadStartResponse = Wire.v2.ThreadStartResponse;
export type ThreadStatus = Wire.v2.ThreadStatus;
export type ThreadUnsubscribeParams = Wire.v2.ThreadUnsubscribeParams;
export type ThreadUnsubscribeResponse = Wire.v2.ThreadUnsubscribeResponse;
export type TokenUsageBreakdown = Wire.v2.TokenUsageBreakdown;
export type Turn = Wire.v2.Turn;
export type TurnError = Wire.v2.TurnError;
export type TurnInterruptParams = Wire.v2.TurnInterruptParams;
export type TurnPlanStep = Wire.v2.TurnPlanStep;
export type TurnStartParams = Wire.v2.TurnStartParams;
export type TurnStartResponse = Wire.v2.TurnStartResponse;
export type TurnStatus = Wire.v2.TurnStatus;
export type TurnSteerParams = Wire.v2.TurnSteerParams;
export type TurnSteerResponse = Wire.v2.TurnSteerResponse;
export type UserInput = Wire.v2.UserInput;

/** One ThreadItem variant, by its `type`. */
export type ThreadItemOf<T extends ThreadItem['type']> = Extract<ThreadItem, { type: T }>;

/** A token breakdown with only the counts the harness reported (see the header). */
export type ReportedTokenBreakdown = Partial<TokenUsageBreakdown>;

/** thread/tokenUsage/updated as the bridge sends it: the generated shape with reported counts only. */
export interface TokenUsageNotification {
  method: 'thread/tokenUsage/updated';
  params: {
    threadId: string;
    turnId: string;
    tokenUsage: { total: ReportedTokenBreakdown; last: ReportedTokenBreakdown; modelContextWindow: number | null };
  };
}

/** A server notification the bridge sends: any generated one, the token usage one relaxed as above. */
export type BridgeNotification =
  | Exclude<ServerNotification, { method: 'thread/tokenUsage/updated' }>
  | TokenUsageNotification;

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
