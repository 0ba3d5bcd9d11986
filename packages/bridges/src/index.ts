// @reins/bridges: stdio bridges that speak a protocol outward in front of any Reins harness.
// ACP out: `reins bridge acp -H <harness>` runs as an Agent Client Protocol agent.
export { AcpBridge, type AcpBridgeOptions } from './acp/agent.js';
export { decisionOf, fileRefOf, mcpServersOf, promptInput, settingRequestOf } from './acp/requests.js';
export { type StdioBridgeOptions, type StopReason, serveAcpStdio } from './acp/stdio.js';
export {
  acpErrorOf,
  acpToolKindOf,
  type BridgeSettings,
  type BridgeState,
  configOptionsOf,
  createBridgeState,
  diffTexts,
  historyUpdates,
  permissionRequestOf,
  promptAnswer,
  translateEvent,
} from './acp/translate.js';
