// @reins/bridges: stdio bridges that speak a protocol outward in front of any Reins harness.
// ACP out: `reins bridge acp -H <harness>` runs as an Agent Client Protocol agent.
export { AcpBridge, type AcpBridgeOptions } from './acp/agent.js';
export { acpErrorOf, permissionRequestOf, promptAnswer, promptUsageOf } from './acp/answers.js';
export { type BridgeSettings, configOptionsOf, currentModelOf, modesOf } from './acp/options.js';
export { decisionOf, fileRefOf, mcpServersOf, promptInput, settingRequestOf } from './acp/requests.js';
export { acpStdioStream, type StdioBridgeOptions, type StopReason, serveAcpStdio } from './acp/stdio.js';
export { acpToolKindOf, diffTexts, inputDiffs } from './acp/tools.js';
export {
  type BridgeState,
  createBridgeState,
  historyUpdates,
  translateEvent,
  translateSafely as translateAcpEventSafely,
} from './acp/translate.js';
export { type BlocksBridgeOptions, serveBlocksStdio } from './codex-app-server/blocks.js';
export {
  type Attachment,
  Attachments,
  BlockError,
  blockInputOf,
  parseBlock,
} from './codex-app-server/blocks-input.js';
// Codex app-server out: `reins bridge codex-app-server -H <harness>` speaks `codex app-server` (v2).
export { RpcConnection, type RpcConnectionOptions, RpcError, type RpcId } from './codex-app-server/connection.js';
export { codexErrorInfoOf, rpcErrorOf, turnErrorOf } from './codex-app-server/errors.js';
export { historyTurns } from './codex-app-server/history.js';
export { childThreadId, threadItemOf } from './codex-app-server/items.js';
export { configValueOf, type LaunchOptions, launchOptionsOf } from './codex-app-server/launch.js';
export { defaultSocketPath, type ListenPlan, listenPlanOf } from './codex-app-server/listen.js';
export {
  type ApprovalAnswer,
  approvalAnswerOf,
  effortOf,
  mcpServersOf as codexMcpServersOf,
  ParamsError,
  postureOf,
  type ThreadRequest,
  threadRequestOf,
  turnInputOf,
} from './codex-app-server/requests.js';
export { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './codex-app-server/server.js';
export {
  type CodexSocketBridgeOptions,
  listenCodexAppServer,
  serveCodexAppServerSocket,
  upgradeRefusal,
} from './codex-app-server/socket.js';
export { type CompletedItemsView, createThreadState, type ThreadState } from './codex-app-server/state.js';
export {
  type CodexBridgeStopReason,
  type CodexStdioBridgeOptions,
  serveCodexAppServerStdio,
} from './codex-app-server/stdio.js';
export {
  translateEvent as translateCodexEvent,
  translateSafely as translateCodexEventSafely,
} from './codex-app-server/translate.js';
export { beginSteer, endSteer, requestInterrupt } from './codex-app-server/turns.js';
export { tokenUsageOf } from './codex-app-server/usage.js';
export { type BridgeNotification, CODEX_PROTOCOL_VERSION } from './codex-app-server/wire.js';
// Shared by both bridges: the event check, bounded line framing, bounded JSON, and what a bridge
// remembers across processes.
export { checkedEvent, guarded, type TranslationFault } from './events.js';
export { DEFAULT_MAX_LINE_BYTES, LineReader, leadingId } from './framing.js';
export { boundedJson, type Json } from './json.js';
export {
  fileRecords,
  memoryRecords,
  type RecordStore,
  recordsDir,
  type SessionRecord,
  type TurnRecord,
} from './records.js';
