// What a connection needs to serve the daemon as a UI's whole backend (the harness catalog, the
// conversations a harness keeps, sign-in, a session's fork and MCP status): one interface, so the
// local daemon (harness-service.ts) serves it and a daemon without it (a cluster gateway) answers
// unsupported_capability for each method instead of a made-up answer.

import type { CapabilityMatrix, HarnessId, Item, McpServerStatus, ModelInfo, SessionSummary } from '@reins/core';
import type {
  AuthCeremonyInfo,
  AuthStatus,
  HarnessListing,
  HarnessSessionsParams,
  SessionCreateResult,
} from '@reins/protocol';

export interface UiBackend {
  models(harness: HarnessId): Promise<ModelInfo[]>;
  capabilities(harness: HarnessId): Promise<CapabilityMatrix>;
  harnessSessions(params: HarnessSessionsParams): Promise<SessionSummary[]>;
  history(harness: HarnessId, nativeSessionId: string, cwd: string | undefined): Promise<Item[]>;
  authStatus(harness: HarnessId): Promise<AuthStatus>;
  login(harness: HarnessId, method: string | undefined): Promise<AuthCeremonyInfo>;
  cancelLogin(ceremonyId: string): Promise<void>;
  fork(sessionId: string): Promise<SessionCreateResult>;
  mcpStatus(sessionId: string): Promise<McpServerStatus[]>;
  /** harness/list's listings with each harness's sign-in state added (under the probe deadline). */
  withAuth(listings: HarnessListing[]): Promise<HarnessListing[]>;
  close(): Promise<void>;
}
