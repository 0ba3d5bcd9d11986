// Everything the console asks of the daemon, on one authenticated connection. What @reins/client
// offers (sessions, harness/list, delete) goes through the ReinsClient; the protocol 2 methods the
// client has no helper for (harness/models, harness/capabilities, harness/sessions,
// harness/auth/*, session/fork, session/mcpStatus) are called by name through the socket tap, and
// a daemon that does not serve one answers with its own error, which the console shows as is: it
// never makes up an answer. An answer is checked against the protocol's schema when @reins/client
// has one for that method, else against the shape docs/architecture/daemon.md gives.
import {
  connect,
  type HarnessListing,
  type InitializeResult,
  isMethodName,
  METHODS,
  type ReinsClient,
  type RemoteSession,
  type SessionListing,
  type SessionsChangedParams,
  type StatusSnapshotParams,
  type WebSocketConstructor,
} from '@reins/client';
import {
  type CapabilityMatrix,
  CapabilityMatrixSchema,
  EffortSchema,
  type HarnessId,
  type ModelInfo,
  ReinsError,
  type SessionSpec,
  type SessionSummary,
} from '@reins/core';
import { z } from 'zod';
import type { AttachedSession, DaemonLink } from '../model/connection.js';
import { SocketTap } from './socket-tap.js';

export interface AuthState {
  harness: string;
  status: string;
  account?: string;
}
export interface AuthCeremony {
  ceremonyId: string;
  url?: string;
  userCode?: string;
  instructions: string;
}
export interface Forked {
  sessionId: string;
}

const ModelInfoSchema = z.looseObject({
  id: z.string().min(1),
  displayName: z.string().optional(),
  isDefault: z.boolean().optional(),
  efforts: z.array(EffortSchema).optional(),
});
const SessionSummarySchema = z.looseObject({
  nativeSessionId: z.string().min(1),
  cwd: z.string().optional(),
  title: z.string().optional(),
  updatedAt: z.number().optional(),
});
const AuthStateSchema = z.looseObject({ harness: z.string(), status: z.string(), account: z.string().optional() });
const AuthCeremonySchema = z.looseObject({
  ceremonyId: z.string().min(1),
  url: z.string().optional(),
  userCode: z.string().optional(),
  instructions: z.string(),
});

/** A list, bare or in an object under `key` (daemon.md does not fix the wrapper). */
const listOf = <T extends z.ZodType>(item: T, key: string) =>
  z.union([z.array(item), z.object({ [key]: z.array(item) }).transform((value) => value[key] as z.output<T>[])]);

export const AUTH_CHANGED = 'harness/authChanged';

export class DaemonApi implements DaemonLink {
  /** Opens the WebSocket to the daemon this page came from and initializes it with the token. */
  static async open(url: string, token: string, Base?: WebSocketConstructor): Promise<DaemonApi> {
    const tap = new SocketTap();
    const WebSocketClass =
      Base ?? ((globalThis as { WebSocket?: WebSocketConstructor }).WebSocket as WebSocketConstructor);
    const client = await connect({
      url,
      token,
      WebSocket: tap.wrap(WebSocketClass),
      client: { name: 'reins-console', version: '0.1.0' },
      requestTimeoutMs: 120_000,
    });
    return new DaemonApi(client, tap);
  }

  constructor(
    readonly client: ReinsClient,
    private readonly tap: SocketTap,
  ) {}

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

  // ---- by name (protocol 2 methods without a client helper) -----------------------------------------

  models(harness: string): Promise<ModelInfo[]> {
    return this.call('harness/models', { harness }, listOf(ModelInfoSchema, 'models'));
  }

  capabilities(harness: string): Promise<CapabilityMatrix> {
    return this.call(
      'harness/capabilities',
      { harness },
      z.union([
        CapabilityMatrixSchema,
        z.object({ capabilities: CapabilityMatrixSchema }).transform((v) => v.capabilities),
      ]),
    );
  }

  /** The conversations the harness itself keeps on disk (not only the daemon's). */
  harnessSessions(harness: string, cwd?: string): Promise<SessionSummary[]> {
    return this.call(
      'harness/sessions',
      { harness, ...(cwd ? { cwd } : {}) },
      listOf(SessionSummarySchema, 'sessions'),
    );
  }

  authStatus(harness: string): Promise<AuthState> {
    return this.call('harness/auth/status', { harness }, AuthStateSchema);
  }

  authLogin(harness: string, method?: string): Promise<AuthCeremony> {
    return this.call('harness/auth/login', { harness, ...(method ? { method } : {}) }, AuthCeremonySchema);
  }

  authCancel(ceremonyId: string): Promise<void> {
    return this.call('harness/auth/cancel', { ceremonyId }, z.unknown()).then(() => undefined);
  }

  fork(sessionId: string): Promise<Forked> {
    return this.call('session/fork', { sessionId }, z.looseObject({ sessionId: z.string().min(1) }));
  }

  onAuthChanged(listener: (state: AuthState) => void): () => void {
    return this.tap.onNotification(AUTH_CHANGED, (params) => {
      const parsed = AuthStateSchema.safeParse(params);
      if (parsed.success) listener(parsed.data);
    });
  }

  private async call<T>(method: string, params: unknown, expected: z.ZodType<T>): Promise<T> {
    const result = await this.tap.call(method, params);
    const schema = isMethodName(method) ? (METHODS[method].result as unknown as z.ZodType<T>) : expected;
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new ReinsError(
        'protocol_error',
        `The daemon's answer to ${method} does not have the shape this console knows: ${parsed.error.issues[0]?.message ?? 'unexpected value'}.`,
        { operation: method },
      );
    }
    return parsed.data;
  }
}

/** The daemon's WebSocket url for a page it served: the same host and port. */
export function daemonUrlOf(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
}
