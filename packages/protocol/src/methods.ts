// Every method of the wire: its params schema (validated by the daemon) and result schema (validated
// by clients), version 1's and version 2's together.
import {
  CapabilityMatrixSchema,
  CheckpointChangeSchema,
  HarnessIdSchema,
  ItemSchema,
  NativeFrameSchema,
} from '@reins/core';
import { z } from 'zod';
import { AuthCancelParamsSchema, AuthCeremonyInfoSchema, AuthLoginParamsSchema, AuthStatusSchema } from './auth.js';
import { InitializeParamsSchema, InitializeResultSchema } from './handshake.js';
import {
  HarnessHistoryParamsSchema,
  HarnessListingSchema,
  HarnessRefSchema,
  HarnessSessionsParamsSchema,
  McpServerStatusSchema,
  ModelInfoSchema,
  SessionSummarySchema,
} from './harness-catalog.js';
import {
  RespondToPermissionParamsSchema,
  SendParamsSchema,
  SendResultSchema,
  SessionCreateParamsSchema,
  SessionCreateResultSchema,
  SessionListingSchema,
  SessionRefSchema,
  SetEffortParamsSchema,
  SetModelParamsSchema,
  SettingChangeSchema,
  SubscribeParamsSchema,
  SubscribeResultSchema,
} from './sessions.js';

/** Methods without parameters take none, or an empty object. */
export const NoParamsSchema = z.object({}).optional();
export type NoParams = z.input<typeof NoParamsSchema>;
/** Methods that only acknowledge answer an empty object. */
export const AckSchema = z.object({});
export type Ack = z.output<typeof AckSchema>;

const ForkResultSchema = z.object({
  sessionId: z.string().min(1),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
});

/** session/diff: one turn's measured changes, or (no turnId) the whole session's. */
export const SessionDiffParamsSchema = z.object({ sessionId: z.string().min(1), turnId: z.string().min(1).optional() });
export const SessionDiffSchema = z.object({
  turnId: z.string().optional(),
  changes: z.array(CheckpointChangeSchema),
});
/**
 * session/nativeFrames: the native frames of the events after `afterSeq` (at most `limit`, default
 * 256, of them), for a client that takes events without them (capability omitNative) and wants some
 * back, e.g. a debug view. Events without a native frame are left out; a frame is as stored (a
 * reference `{ reinsFrameRef: seq }` names the event that carries it).
 */
export const NATIVE_FRAMES_PAGE = { default: 256, max: 512 } as const;
export const NativeFramesParamsSchema = z.object({
  sessionId: z.string().min(1),
  afterSeq: z.number().int().nonnegative(),
  limit: z.number().int().min(1).max(NATIVE_FRAMES_PAGE.max).optional(),
});
export const NativeFramesResultSchema = z.object({
  frames: z.array(z.object({ seq: z.number().int().positive(), native: NativeFrameSchema })),
});
/** session/revert: files (and the conversation where the harness can) back to before the turn. */
export const SessionRevertParamsSchema = z.object({
  sessionId: z.string().min(1),
  turnId: z.string().min(1),
  force: z.boolean().optional(),
});
export const RevertResultSchema = z.object({
  turnId: z.string(),
  files: z.array(z.string()),
  conversation: z.enum(['reverted', 'forked', 'unchanged']),
});

/** The methods of this part of the protocol (spread into METHODS). */
export const HARNESS_METHODS = {
  'harness/models': { params: HarnessRefSchema, result: z.array(ModelInfoSchema) },
  'harness/capabilities': { params: HarnessRefSchema, result: CapabilityMatrixSchema },
  'harness/sessions': { params: HarnessSessionsParamsSchema, result: z.array(SessionSummarySchema) },
  'harness/history': { params: HarnessHistoryParamsSchema, result: z.array(ItemSchema) },
  'harness/auth/status': { params: HarnessRefSchema, result: AuthStatusSchema },
  'harness/auth/login': { params: AuthLoginParamsSchema, result: AuthCeremonyInfoSchema },
  'harness/auth/cancel': { params: AuthCancelParamsSchema, result: z.object({}) },
  /** A new daemon session on a copy of this one's conversation (the harness's own fork). */
  'session/fork': { params: SessionRefSchema, result: ForkResultSchema },
  'session/mcpStatus': { params: SessionRefSchema, result: z.array(McpServerStatusSchema) },
} as const;

/** Every method: its params schema (validated by the daemon) and result schema (validated by clients). */
export const METHODS = {
  initialize: { params: InitializeParamsSchema, result: InitializeResultSchema },
  'harness/list': { params: NoParamsSchema, result: z.array(HarnessListingSchema) },
  'session/create': { params: SessionCreateParamsSchema, result: SessionCreateResultSchema },
  'session/list': { params: NoParamsSchema, result: z.array(SessionListingSchema) },
  'session/subscribe': { params: SubscribeParamsSchema, result: SubscribeResultSchema },
  'session/unsubscribe': { params: SessionRefSchema, result: AckSchema },
  'session/send': { params: SendParamsSchema, result: SendResultSchema },
  'session/interrupt': { params: SessionRefSchema, result: AckSchema },
  'session/setModel': { params: SetModelParamsSchema, result: SettingChangeSchema },
  'session/setEffort': { params: SetEffortParamsSchema, result: SettingChangeSchema },
  'session/respondToPermission': { params: RespondToPermissionParamsSchema, result: AckSchema },
  'session/close': { params: SessionRefSchema, result: AckSchema },
  /** Version 2: forgets a session (closing it first when it is open) and its whole event log. */
  'session/delete': { params: SessionRefSchema, result: AckSchema },
  /** Checkpoints (docs/architecture/contract.md, "Checkpoints"): served by the session's live harness process. */
  'session/diff': { params: SessionDiffParamsSchema, result: SessionDiffSchema },
  'session/nativeFrames': { params: NativeFramesParamsSchema, result: NativeFramesResultSchema },
  'session/revert': { params: SessionRevertParamsSchema, result: RevertResultSchema },
  /** The harness compacts the conversation now, a turn of its own (docs/architecture/contract.md, "Compaction"). */
  'session/compact': { params: SessionRefSchema, result: SendResultSchema },
  ...HARNESS_METHODS,
} as const;
export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.output<(typeof METHODS)[M]['params']>;
export type ResultOf<M extends MethodName> = z.output<(typeof METHODS)[M]['result']>;
export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

export function isMethodName(value: string): value is MethodName {
  return Object.hasOwn(METHODS, value);
}
