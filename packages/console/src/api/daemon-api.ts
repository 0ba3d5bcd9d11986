// Everything the console asks of the daemon, on one authenticated connection, through
// @reins/client (the one home of the protocol): sessions, harness/list, and the protocol 2 methods
// of a UI's backend (harness/models, harness/capabilities, harness/sessions, harness/auth/*,
// session/fork). A daemon that does not serve one answers with its own error (method not found,
// unsupported_capability), and the console shows that as is: it never makes up an answer.
import {
  type AuthCeremonyInfo,
  type AuthStatus,
  connect,
  type HarnessAuthChangedParams,
  type HarnessListing,
  type InitializeResult,
  type ReinsClient,
  type RemoteSession,
  type SessionListing,
  type SessionsChangedParams,
  type StatusSnapshotParams,
  type WebSocketConstructor,
} from '@reins/client';
import type { CapabilityMatrix, HarnessId, ModelInfo, ReinsError, SessionSpec, SessionSummary } from '@reins/core';
import type { AttachedSession, DaemonLink } from '../model/connection.js';

export class DaemonApi implements DaemonLink {
  /** Opens the WebSocket to the daemon this page came from and initializes it with the token. */
  static async open(url: string, token: string, WebSocketClass?: WebSocketConstructor): Promise<DaemonApi> {
    const client = await connect({
      url,
      token,
      ...(WebSocketClass ? { WebSocket: WebSocketClass } : {}),
      client: { name: 'reins-console', version: '0.1.0' },
      requestTimeoutMs: 120_000,
      // Native frames are about half of every event's bytes and only the raw-frames panel shows
      // them: it fetches the ones it shows (DebugPanel, session/nativeFrames).
      nativeFrames: false,
    });
    return new DaemonApi(client);
  }

  constructor(readonly client: ReinsClient) {}

  // ---- DaemonLink -----------------------------------------------------------------------------------

  get closed(): Promise<ReinsError> {
    return this.client.closed;
  }
  get isClosed(): boolean {
    return this.client.isClosed;
  }
  get lastSnapshot(): StatusSnapshotParams | undefined {
    return this.client.lastSnapshot;
  }
  attach(sessionId: string, options: { afterSeq: number }): Promise<AttachedSession> {
    return this.client.attach(sessionId, options);
  }
  listSessions(): Promise<SessionListing[]> {
    return this.client.listSessions();
  }
  onStatusSnapshot(listener: (snapshot: StatusSnapshotParams) => void): () => void {
    return this.client.onStatusSnapshot(listener);
  }
  onSessionsChanged(listener: (change: SessionsChangedParams) => void): () => void {
    return this.client.onSessionsChanged(listener);
  }
  close(): void {
    this.client.close();
  }

  // ---- through @reins/client ------------------------------------------------------------------------

  get info(): InitializeResult {
    return this.client.info;
  }

  harnesses(): Promise<HarnessListing[]> {
    return this.client.harnesses();
  }

  /** Starts a session; the returned RemoteSession is attached from its first event. */
  createSession(harness: HarnessId, spec: SessionSpec): Promise<RemoteSession> {
    return this.client.createSession(harness, spec);
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.client.deleteSession(sessionId);
  }

  models(harness: HarnessId): Promise<ModelInfo[]> {
    return this.client.models(harness);
  }

  capabilities(harness: HarnessId): Promise<CapabilityMatrix> {
    return this.client.capabilities(harness);
  }

  /** The conversations the harness itself keeps on disk (not only the daemon's), newest first. */
  harnessSessions(harness: HarnessId, cwd?: string): Promise<SessionSummary[]> {
    return this.client.harnessSessions(harness, cwd ? { cwd } : {});
  }

  authStatus(harness: HarnessId): Promise<AuthStatus> {
    return this.client.authStatus(harness);
  }

  authLogin(harness: HarnessId, method?: string): Promise<AuthCeremonyInfo> {
    return this.client.login(harness, method);
  }

  authCancel(ceremonyId: string): Promise<void> {
    return this.client.cancelLogin(ceremonyId);
  }

  fork(sessionId: string): Promise<{ sessionId: string }> {
    return this.client.fork(sessionId);
  }

  onAuthChanged(listener: (change: HarnessAuthChangedParams) => void): () => void {
    return this.client.onAuthChanged(listener);
  }
}
