// What the cluster keeps in its key-value buckets and sends between members, as types with the
// zod schemas that check them when they are read back from NATS (a trust boundary: another
// member, another Reins version, or a hand edit wrote them). A value that fails its schema is
// skipped with a warning, never acted on.

import {
  EffortSchema,
  type ErrorInfo,
  ErrorInfoSchema,
  HarnessIdSchema,
  ReinsError,
  SessionSpecSchema,
} from '@reins/core';
import { HOSTED_SESSION_STATES, type HostedSessionStatus, SessionLabelsSchema } from '@reins/protocol';
import { z } from 'zod';
import type { StoredSession } from '../store/store.js';
import type { Labels } from './options.js';

const TokenSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);

const StoredSessionSchema = z.looseObject({
  sessionId: TokenSchema,
  harness: HarnessIdSchema,
  cwd: z.string().min(1),
  spec: SessionSpecSchema,
  harnessOptions: z.record(z.string(), z.unknown()).optional(),
  hadBaseEnv: z.boolean().optional(),
  labels: SessionLabelsSchema.optional(),
  nativeSessionId: z.string().optional(),
  title: z.string().optional(),
  model: z.string().optional(),
  effort: EffortSchema.optional(),
  state: z.enum(['open', 'closed']),
  generation: z.number().int().nonnegative(),
  createdAt: z.number(),
  updatedAt: z.number(),
  closedAt: z.number().optional(),
  openTurn: z.object({ turnId: z.string().min(1), seq: z.number().int().positive() }).optional(),
});

/**
 * A session's record in the sessions bucket. `worker`/`epoch` say who holds it (one run of one
 * worker: a worker that restarts, or fences itself, has a new epoch); `status` is what the holder
 * last said, or `lost` once its holder is gone.
 */
export interface ClusterSessionRecord {
  session: StoredSession;
  worker: string;
  epoch: string;
  status: HostedSessionStatus;
  /** The log's newest seq when the holder set `status` (an event after it may say newer). */
  statusSeq?: number;
  /** When it was found lost (ms since epoch, the finder's clock). */
  lostAt?: number;
  /** The finder ended its running turn and said so in its log: a worker may take it on now. */
  lostSettled?: boolean;
}

export const ClusterSessionRecordSchema = z.object({
  session: StoredSessionSchema,
  worker: TokenSchema,
  epoch: TokenSchema,
  status: z.enum(HOSTED_SESSION_STATES),
  statusSeq: z.number().int().nonnegative().optional(),
  lostAt: z.number().optional(),
  lostSettled: z.boolean().optional(),
});

/** A finder that died while marking a session lost leaves it unsettled: after this long, it may be taken anyway. */
export const LOST_SETTLE_DEADLINE_MS = 30_000;

/** Whether a worker may take the session on (it is lost, and the finder is done or long gone). */
export function isAdoptable(record: ClusterSessionRecord, now: number): boolean {
  if (record.status !== 'lost' || record.session.state === 'closed') return false;
  return record.lostSettled === true || now - (record.lostAt ?? 0) > LOST_SETTLE_DEADLINE_MS;
}

/** A member's heartbeat, put again every interval under `worker.<id>` or `gateway.<id>`. */
export interface MemberRecord {
  role: 'worker' | 'gateway';
  id: string;
  epoch: string;
  labels: Labels;
  /** Harness ids a worker offers (none for a gateway). */
  harnesses: string[];
  /** Sessions with a live harness process (placement prefers the least busy worker). */
  liveSessions: number;
  host: string;
  pid: number;
  startedAt: number;
}

export const MemberRecordSchema = z.object({
  role: z.enum(['worker', 'gateway']),
  id: TokenSchema,
  epoch: TokenSchema,
  labels: z.record(z.string(), z.string()),
  harnesses: z.array(z.string()),
  liveSessions: z.number().int().nonnegative(),
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.number(),
});

/**
 * What a gateway asks of a worker (request/reply on `reins.worker.<id>.rpc`): a client's request
 * by its protocol method name, with the params the gateway checked (the worker checks them again
 * with the same schemas), or one of the cluster's own.
 */
export const WORKER_METHODS = [
  'session/create',
  'session/send',
  'session/interrupt',
  'session/setModel',
  'session/setEffort',
  'session/respondToPermission',
  'session/close',
  'session/delete',
  /** Take on a lost session (params: { sessionId }). */
  'cluster/adopt',
  /** This worker's harness/list. */
  'cluster/harnesses',
] as const;
export type WorkerMethod = (typeof WORKER_METHODS)[number];

export interface WorkerRequest {
  method: WorkerMethod;
  params?: unknown;
}
export const WorkerRequestSchema = z.object({
  method: z.enum(WORKER_METHODS),
  params: z.unknown().optional(),
});

export type WorkerReply = { result: unknown } | { error: ErrorInfo };
export const WorkerReplySchema = z.union([z.object({ error: ErrorInfoSchema }), z.object({ result: z.unknown() })]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses `bytes` as JSON checked by `schema`; undefined (never a throw) when it is neither. */
export function decodeJson<T>(bytes: Uint8Array, schema: z.ZodType<T>): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function decodeRecord(bytes: Uint8Array): ClusterSessionRecord | undefined {
  return decodeJson(bytes, ClusterSessionRecordSchema) as ClusterSessionRecord | undefined;
}

export function decodeMember(bytes: Uint8Array): MemberRecord | undefined {
  return decodeJson(bytes, MemberRecordSchema);
}

/** A worker's answer back to the error the gateway rethrows (same code, same sentence). */
export function replyError(reply: WorkerReply): ReinsError | undefined {
  return 'error' in reply ? ReinsError.fromInfo(reply.error) : undefined;
}

/** Why a worker refused a request it cannot serve here (the gateway looks again and reroutes). */
export const NOT_HERE = 'not_here';

export function notHereError(sessionId: string, workerId: string): ReinsError {
  return new ReinsError('invalid_input', `Worker ${workerId} does not hold session ${sessionId}.`, {
    data: { sessionId, reason: NOT_HERE },
  });
}

export function isNotHere(error: unknown): boolean {
  return ReinsError.isInstance(error) && (error.data as { reason?: unknown } | undefined)?.reason === NOT_HERE;
}
