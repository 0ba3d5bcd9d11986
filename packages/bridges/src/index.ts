// @reins/bridges: stdio bridges that speak a protocol outward in front of any Reins harness. Public
// on purpose: the bridges, how to serve them, the option parsing `reins bridge` shares, and what a
// bridge remembers across processes; translation, framing and request parsing stay inside
// (api.txt lists the runtime names; packages/harnesses/src/public-api.test.ts compares).
// ACP out: `reins bridge acp -H <harness>` runs as an Agent Client Protocol agent.
export { AcpBridge, type AcpBridgeOptions } from './acp/agent.js';
export { acpStdioStream, type StdioBridgeOptions, type StopReason, serveAcpStdio } from './acp/stdio.js';
// `reins acp-check -- <agent>`: Reins' own ACP conformance kit, for any ACP agent.
export {
  type AcpCheckOptions,
  type AcpCheckReport,
  type AgentTransport,
  REQUIREMENTS as ACP_CHECK_REQUIREMENTS,
  type RequirementResult,
  renderReport as renderAcpCheckReport,
  runAcpCheck,
  type StdioAgentOptions,
  stdioAgent,
  type Tier,
  type Verdict,
  verdictOf as acpCheckVerdict,
} from './acp-check/index.js';
// Codex app-server out: `reins bridge codex-app-server -H <harness>` speaks `codex app-server` (v2).
export { type BlocksBridgeOptions, serveBlocksStdio } from './codex-app-server/blocks.js';
export { type ExecOptions, runCodexExec } from './codex-app-server/exec.js';
export { type ExecRequest, execRequestOf } from './codex-app-server/exec-args.js';
export { type ExecEvent, ExecEventTranslator } from './codex-app-server/exec-events.js';
export { type LaunchOptions, launchOptionsOf } from './codex-app-server/launch.js';
export { defaultSocketPath, type ListenPlan, listenPlanOf } from './codex-app-server/listen.js';
export { ParamsError } from './codex-app-server/requests.js';
export { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './codex-app-server/server.js';
export {
  type CodexSocketBridgeOptions,
  listenCodexAppServer,
  serveCodexAppServerSocket,
} from './codex-app-server/socket.js';
export {
  type CodexBridgeStopReason,
  type CodexStdioBridgeOptions,
  serveCodexAppServerStdio,
} from './codex-app-server/stdio.js';
export { type BridgeNotification, CODEX_PROTOCOL_VERSION } from './codex-app-server/wire.js';
// The daemon-backed session source (`reins bridge --daemon`): a Harness whose sessions open in a daemon.
export { type DaemonHarnessListing, type DaemonSessions, daemonHarness } from './daemon-sessions.js';
// What a bridge remembers across processes (sessions and turns, per protocol and id).
export {
  fileRecords,
  memoryRecords,
  type RecordStore,
  recordsDir,
  type SessionRecord,
  type TurnRecord,
} from './records.js';
