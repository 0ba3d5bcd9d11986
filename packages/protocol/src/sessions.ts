// Daemon sessions on the wire (version 2): create, list, subscribe, send and the session settings,
// the states a hosted session goes through, and the notifications every version 2 client gets about
// them (`status/snapshot`, `sessions/changed`).
import {
  type Assert,
  type Effort,
  EffortSchema,
  type Equals,
  type HarnessId,
  HarnessIdSchema,
  type PermissionDecision,
  PermissionDecisionSchema,
  POSTURES,
  type Posture,
  type SendOptions,
  SendOptionsSchema,
  type SendResult,
  type SessionSpec,
  SessionSpecSchema,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
} from '@reins/core';
import { z } from 'zod';
import { type SessionLabels, SessionLabelsSchema } from './cluster.js';
import { type WireHarnessOptions, WireHarnessOptionsSchema } from './harness-catalog.js';

export interface SessionCreateParams {
  harness: HarnessId;
  spec: SessionSpec;
  harnessOptions?: WireHarnessOptions;
  labels?: SessionLabels;
}
export const SessionCreateParamsSchema = z.object({
  harness: HarnessIdSchema,
  spec: SessionSpecSchema,
  harnessOptions: WireHarnessOptionsSchema.optional(),
  labels: SessionLabelsSchema.optional(),
});

export interface SessionCreateResult {
  sessionId: string;
  harness: HarnessId;
  /** Known at creation for some harnesses (Claude Code fixes it up front); else from session.updated. */
  nativeSessionId?: string;
}
export const SessionCreateResultSchema = z.object({
  sessionId: z.string().min(1),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
});
type _CreateResultInSync = Assert<Equals<z.output<typeof SessionCreateResultSchema>, SessionCreateResult>>;

/**
 * The state of a daemon session (BINDING names): `starting` (its harness process is being started
 * or resumed), `idle` / `running` / `requires_action` (mirrored from the harness's session.status),
 * `dormant` (no live process: after a daemon restart, an idle eviction or the process ending; the
 * next session/send resumes the native conversation), `closed`, and `lost` (cluster mode: its
 * worker is gone).
 */
export const HOSTED_SESSION_STATES = [
  'starting',
  'idle',
  'running',
  'requires_action',
  'dormant',
  'closed',
  'lost',
] as const;
export type HostedSessionStatus = (typeof HOSTED_SESSION_STATES)[number];
export const HostedSessionStatusSchema = z.enum(HOSTED_SESSION_STATES);

export interface SessionListing {
  sessionId: string;
  harness: HarnessId;
  nativeSessionId?: string;
  cwd: string;
  title?: string;
  model?: string;
  effort?: Effort;
  /** The permission posture it was created with (absent: bypass); a UI tells a tool run by the harness's own rules under `ask`. */
  posture?: Posture;
  status: HostedSessionStatus;
  /** seq of the newest event (0 before the first). */
  lastSeq: number;
  /** ms since epoch. */
  createdAt: number;
  /** ms since epoch: the newest event or change of the session. */
  updatedAt: number;
  /** Cluster mode: the worker that holds the session (or held it, when it is `lost`). */
  worker?: string;
  /** Cluster mode: the labels it was created with (a resume goes to a worker that has them). */
  labels?: SessionLabels;
}
export const SessionListingSchema = z.object({
  sessionId: z.string(),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
  cwd: z.string(),
  title: z.string().optional(),
  model: z.string().optional(),
  effort: EffortSchema.optional(),
  posture: z.enum(POSTURES).optional(),
  status: HostedSessionStatusSchema,
  lastSeq: z.number().int().nonnegative(),
  createdAt: z.number(),
  updatedAt: z.number(),
  worker: z.string().optional(),
  labels: SessionLabelsSchema.optional(),
});
type _SessionListingInSync = Assert<Equals<z.output<typeof SessionListingSchema>, SessionListing>>;

export interface SessionRef {
  sessionId: string;
}
export const SessionRefSchema = z.object({ sessionId: z.string().min(1) });

export interface SubscribeParams {
  sessionId: string;
  /** The last seq the client already has (0 or absent: from the first event). */
  afterSeq?: number;
}
export const SubscribeParamsSchema = z.object({
  sessionId: z.string().min(1),
  afterSeq: z.number().int().nonnegative().optional(),
});
type _SubscribeInSync = Assert<Equals<z.output<typeof SubscribeParamsSchema>, SubscribeParams>>;

export interface SubscribeResult {
  /** seq of the newest event when the subscription started; replayed events follow this answer. */
  lastSeq: number;
  harness: HarnessId;
  nativeSessionId?: string;
  status: HostedSessionStatus;
}
export const SubscribeResultSchema = z.object({
  lastSeq: z.number().int().nonnegative(),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
  status: HostedSessionStatusSchema,
});
type _SubscribeResultInSync = Assert<Equals<z.output<typeof SubscribeResultSchema>, SubscribeResult>>;

export interface SendParams {
  sessionId: string;
  input: TurnInput | string;
  options?: SendOptions;
}
export const SendParamsSchema = z.object({
  sessionId: z.string().min(1),
  input: z.union([z.string(), TurnInputSchema]),
  options: SendOptionsSchema.optional(),
});
type _SendInSync = Assert<Equals<z.output<typeof SendParamsSchema>, SendParams>>;

export const SendResultSchema = z.object({
  turnId: z.string().min(1),
  delivery: z.enum(['started', 'queued', 'steered']),
});
type _SendResultInSync = Assert<Equals<z.output<typeof SendResultSchema>, SendResult>>;

export const SettingChangeSchema = z.object({ applied: z.enum(['live', 'next_turn', 'restart']) });
type _SettingInSync = Assert<Equals<z.output<typeof SettingChangeSchema>, SettingChange>>;

export interface SetModelParams {
  sessionId: string;
  model: string;
}
export const SetModelParamsSchema = z.object({ sessionId: z.string().min(1), model: z.string().min(1) });

export interface SetEffortParams {
  sessionId: string;
  effort: Effort;
}
export const SetEffortParamsSchema = z.object({ sessionId: z.string().min(1), effort: EffortSchema });
type _EffortInSync = Assert<Equals<z.output<typeof SetEffortParamsSchema>, SetEffortParams>>;

export interface RespondToPermissionParams {
  sessionId: string;
  requestId: string;
  decision: PermissionDecision;
}
export const RespondToPermissionParamsSchema = z.object({
  sessionId: z.string().min(1),
  requestId: z.string().min(1),
  decision: PermissionDecisionSchema,
});
type _PermissionInSync = Assert<Equals<z.output<typeof RespondToPermissionParamsSchema>, RespondToPermissionParams>>;

/**
 * Daemon -> every version 2 client, right after the initialize answer and every 15 s: the state of
 * every session. Authoritative: a client rebuilds its activity map from it (a lost frame heals).
 */
export const STATUS_SNAPSHOT = 'status/snapshot';
export interface SessionActivity {
  sessionId: string;
  status: HostedSessionStatus;
  lastSeq: number;
  updatedAt: number;
}
export interface StatusSnapshotParams {
  sessions: SessionActivity[];
}
export const StatusSnapshotParamsSchema = z.object({
  sessions: z.array(
    z.object({
      sessionId: z.string().min(1),
      status: HostedSessionStatusSchema,
      lastSeq: z.number().int().nonnegative(),
      updatedAt: z.number(),
    }),
  ),
});
type _SnapshotInSync = Assert<Equals<z.output<typeof StatusSnapshotParamsSchema>, StatusSnapshotParams>>;

/** Daemon -> every version 2 client: a session was created, changed (state, native id, title, model, effort), closed or deleted. */
export const SESSIONS_CHANGED = 'sessions/changed';
export const SESSION_CHANGES = ['created', 'updated', 'closed', 'deleted'] as const;
export type SessionChange = (typeof SESSION_CHANGES)[number];
export interface SessionsChangedParams {
  sessionId: string;
  change: SessionChange;
}
export const SessionsChangedParamsSchema = z.object({
  sessionId: z.string().min(1),
  change: z.enum(SESSION_CHANGES),
});
type _ChangedInSync = Assert<Equals<z.output<typeof SessionsChangedParamsSchema>, SessionsChangedParams>>;
