// What a client connection needs of the daemon's sessions, as interfaces: a directory (list, get,
// create, delete) of session handles (state, listing, replay, the client requests). The daemon's
// own SessionHost and HostedSession are one implementation; the cluster gateway
// (cluster/gateway.ts) is the other, serving sessions that run on workers elsewhere.

import type {
  Effort,
  HarnessId,
  PermissionDecision,
  RevertOptions,
  RevertResult,
  SendOptions,
  SendResult,
  SessionDiff,
  SettingChange,
  TurnInput,
} from '@reins/core';
import type {
  HarnessListing,
  HostedSessionStatus,
  SessionChange,
  SessionCreateParams,
  SessionListing,
  V1SessionListing,
} from '@reins/protocol';
import type { EventSink, PublishedEvent } from './session-log.js';

/** One session as a connection and its subscriptions see it. */
export interface SessionHandle {
  readonly id: string;
  readonly harness: HarnessId;
  readonly status: HostedSessionStatus;
  /** seq of the newest event clients can have. */
  readonly lastSeq: number;
  readonly nativeSessionId: string | undefined;
  readonly updatedAt: number;
  readonly isDeleted: boolean;
  listing(): SessionListing;
  v1Listing(): V1SessionListing;
  /** From now on every published event goes to `sink` (one per owner). */
  addSink(owner: object, sink: EventSink): void;
  removeSink(owner: object): void;
  /** Published events after `afterSeq` (at most `limit`); invalid_input when afterSeq is past the newest. */
  readEvents(afterSeq: number, limit: number): Promise<PublishedEvent[]>;
  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult>;
  interrupt(): Promise<void>;
  setModel(model: string): Promise<SettingChange>;
  setEffort(effort: Effort): Promise<SettingChange>;
  respondToPermission(requestId: string, decision: PermissionDecision): Promise<void>;
  /** Answers after every event up to session.closed was handed to subscribers. */
  close(): Promise<void>;
  /** Checkpoints (session-checkpoints.ts); absent where the session is served elsewhere (a cluster gateway). */
  diff?(turnId?: string): Promise<SessionDiff>;
  revert?(turnId: string, options?: RevertOptions): Promise<RevertResult>;
  /** Session.compact on the live process; absent where the session is served elsewhere (a cluster gateway). */
  compact?(): Promise<SendResult>;
}

export interface SessionDirectory {
  list(): SessionHandle[];
  /** invalid_input when unknown. */
  get(sessionId: string): SessionHandle;
  create(params: SessionCreateParams): Promise<SessionHandle>;
  delete(sessionId: string): Promise<void>;
  /**
   * Cluster: brings this session's view up to date before a request on it runs (a session created
   * through another gateway; a client that already has events up to `afterSeq`, seen elsewhere).
   */
  prepare?(sessionId: string, afterSeq: number | undefined): Promise<void>;
}

/** Sessions the daemon serves but does not hold (the cluster gateway): no store, no processes here. */
export interface SessionSource extends SessionDirectory {
  /** Where the sessions are, for messages (a NATS url). */
  readonly location: string;
  listHarnesses(): Promise<HarnessListing[]>;
  close(): Promise<void>;
}

/** Makes the source; `changed` sends sessions/changed to every connection. */
export type SessionSourceFactory = (changed: (sessionId: string, change: SessionChange) => void) => SessionSource;
