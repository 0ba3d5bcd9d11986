// The normalized event protocol (public, docs/architecture/contract.md): one envelope, one payload per type.
// Payload fields sit beside the envelope fields, so `event.type` narrows everything.
import { z } from 'zod';
import type { Assert, Equals } from './assert.js';
import { type ErrorInfo, ErrorInfoSchema } from './errors.js';
import { type Item, ItemSchema, type ToolInfo, ToolInfoSchema } from './items.js';
import { type TurnInput, TurnInputSchema } from './spec.js';

export interface NativeFrame {
  /** Which wire it came from: 'codex.app-server', 'claude.stream-json', 'acp', ... */
  source: string;
  /** JSON-RPC method or native type, when the frame has one. */
  method?: string;
  /** Absent when the frame was undefined (nothing to keep; JSON drops undefined). */
  frame?: unknown;
}
export const NativeFrameSchema = z.object({
  source: z.string(),
  method: z.string().optional(),
  frame: z.unknown().optional(),
});

export interface Envelope {
  seq: number;
  harness: string;
  sessionId: string;
  turnId: string | null;
  /** ms since epoch when Reins received the native frame. */
  at: number;
  parentItemId?: string;
  native?: NativeFrame;
}
/** Flattens an intersection so the event types read (and compare) as plain objects. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

const envelope = {
  seq: z.number().int().positive(),
  harness: z.string(),
  sessionId: z.string(),
  turnId: z.string().nullable(),
  at: z.number(),
  parentItemId: z.string().optional(),
  native: NativeFrameSchema.optional(),
};

/** Token counts; every field absent when the harness did not report it (never 0 for unknown). */
export interface TokenUsage {
  input?: number;
  cachedInput?: number;
  cacheWrite?: number;
  output?: number;
  reasoning?: number;
  total?: number;
}
export const TokenUsageSchema = z.object({
  input: z.number().nonnegative().optional(),
  cachedInput: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  output: z.number().nonnegative().optional(),
  reasoning: z.number().nonnegative().optional(),
  total: z.number().nonnegative().optional(),
});

export interface Cost {
  amount: number;
  currency: 'USD';
  /** provider: the harness reported it. derived: Reins computed it from a price table. */
  source: 'provider' | 'derived';
}
export const CostSchema = z.object({
  amount: z.number().nonnegative(),
  currency: z.literal('USD'),
  source: z.enum(['provider', 'derived']),
});

export interface Usage {
  turn?: TokenUsage;
  total?: TokenUsage;
  context?: { used?: number; window?: number };
  costUsd?: Cost;
}
export const UsageSchema = z.object({
  turn: TokenUsageSchema.optional(),
  total: TokenUsageSchema.optional(),
  context: z.object({ used: z.number().optional(), window: z.number().optional() }).optional(),
  costUsd: CostSchema.optional(),
});

export type TurnOutcome = { status: 'completed' } | { status: 'cancelled' } | { status: 'failed'; error: ErrorInfo };
export const TurnOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('completed') }),
  z.object({ status: z.literal('cancelled') }),
  z.object({ status: z.literal('failed'), error: ErrorInfoSchema }),
]);

export interface PermissionOption {
  id: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
  label: string;
}
export const PermissionOptionSchema = z.object({
  id: z.string(),
  kind: z.enum(['allow_once', 'allow_always', 'reject_once', 'reject_always']),
  label: z.string(),
});

export interface PermissionDecision {
  behavior: 'allow' | 'deny';
  /** once (default) or for the rest of the session, where the harness supports it. */
  scope?: 'once' | 'session';
  /** Pick one of the request's options directly (ACP). */
  optionId?: string;
  /** Told to the model on deny, where the harness passes it on. */
  message?: string;
}
export const PermissionDecisionSchema = z.object({
  behavior: z.enum(['allow', 'deny']),
  scope: z.enum(['once', 'session']).optional(),
  optionId: z.string().optional(),
  message: z.string().optional(),
});

export const NOTICE_KINDS = [
  'retry',
  'rate_limit',
  'compaction',
  'hook',
  'warning',
  'metered_key',
  'deprecation',
  'info',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export const SESSION_STATUSES = ['idle', 'running', 'requires_action'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export type SessionStartedEvent = Simplify<
  Envelope & {
    type: 'session.started';
    cwd: string;
    harnessVersion?: string;
    binaryPath?: string;
    model?: string;
  }
>;
export type SessionUpdatedEvent = Simplify<
  Envelope & {
    type: 'session.updated';
    nativeSessionId?: string;
    model?: string;
    effort?: string;
    title?: string;
    mode?: string;
    tools?: string[];
    apiKeySource?: string;
  }
>;
export type SessionStatusEvent = Simplify<Envelope & { type: 'session.status'; status: SessionStatus }>;
export type SessionClosedEvent = Simplify<
  Envelope & {
    type: 'session.closed';
    reason: 'requested' | 'process_exited' | 'error';
    error?: ErrorInfo;
  }
>;
export type TurnStartedEvent = Simplify<Envelope & { type: 'turn.started'; input: TurnInput }>;
export type ItemStartedEvent = Simplify<Envelope & { type: 'item.started'; item: Item }>;
export type ItemCompletedEvent = Simplify<Envelope & { type: 'item.completed'; item: Item }>;
export type ItemDeltaEvent = Simplify<
  Envelope & {
    type: 'item.delta';
    itemId: string;
    kind: 'text' | 'reasoning' | 'tool_output' | 'tool_input';
    text: string;
  }
>;
export type PermissionRequestedEvent = Simplify<
  Envelope & {
    type: 'permission.requested';
    requestId: string;
    tool: ToolInfo;
    input?: unknown;
    itemId?: string;
    options: PermissionOption[];
  }
>;
export type PermissionResolvedEvent = Simplify<
  Envelope & {
    type: 'permission.resolved';
    requestId: string;
    decision: PermissionDecision;
    /** Who decided: the client, a deadline, or the harness itself (it withdrew the request). */
    by: 'client' | 'timeout' | 'harness';
  }
>;
export type UsageUpdatedEvent = Simplify<Envelope & Usage & { type: 'usage.updated' }>;
export type NoticeEvent = Simplify<Envelope & { type: 'notice'; kind: NoticeKind; message: string; data?: unknown }>;
export type ErrorEvent = Simplify<
  Envelope &
    ErrorInfo & {
      type: 'error';
      /** fatal: the session cannot go on. */
      fatal: boolean;
    }
>;
/**
 * Why Reins passed a frame through instead of translating it. Absent: the adapter knows the frame and
 * deliberately has no event for it. Present: Reins did not understand it, and the session gets one
 * `notice` (kind warning) the first time it sees that reason for that native method.
 */
export const PASSTHROUGH_REASONS = [
  'unknown', // a frame type or enum value this adapter does not know (a newer CLI?)
  'unparsable', // not JSON, or not the shape of the protocol
  'untranslatable', // translation failed on this frame
  'invalid_event', // translation produced an event that breaks the Reins schema
  'duplicate', // the harness sent an item start or completion a second time
] as const;
export type PassthroughReason = (typeof PASSTHROUGH_REASONS)[number];
export type PassthroughEvent = Simplify<
  Envelope & { type: 'passthrough'; frame?: unknown; reason?: PassthroughReason }
>;
export type TurnCompletedEvent = Simplify<
  Envelope & {
    type: 'turn.completed';
    outcome: TurnOutcome;
    usage?: Usage;
    structuredOutput?: unknown;
    stopReason?: string;
  }
>;

/** What a turn changed on disk, measured by Reins (docs/architecture/contract.md, "Checkpoints"). */
export const CHANGE_KINDS = ['added', 'modified', 'deleted', 'renamed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
export interface CheckpointChange {
  /** Relative to the work tree's top folder, with `/` separators. */
  path: string;
  kind: ChangeKind;
  /** A renamed file's path before the turn. */
  previousPath?: string;
  /** A unified diff; absent for a binary file, cut with a marker line when it is too long. */
  diff?: string;
}
export const CheckpointChangeSchema = z.object({
  path: z.string(),
  kind: z.enum(CHANGE_KINDS),
  previousPath: z.string().optional(),
  diff: z.string().optional(),
});
/**
 * A turn's measured changes, emitted after its `turn.completed`; its envelope `turnId` is that turn's.
 * `truncated`: more changes than one event carries (the rest are in `Session.diff`). `ref`: where the
 * turn's snapshots live (`<ref>/before`, `<ref>/after`), so a later process can find them again.
 */
export type CheckpointEvent = Simplify<
  Envelope & { type: 'checkpoint'; turnId: string; changes: CheckpointChange[]; truncated?: boolean; ref?: string }
>;

export type ReinsEvent =
  | SessionStartedEvent
  | SessionUpdatedEvent
  | SessionStatusEvent
  | SessionClosedEvent
  | TurnStartedEvent
  | ItemStartedEvent
  | ItemCompletedEvent
  | ItemDeltaEvent
  | PermissionRequestedEvent
  | PermissionResolvedEvent
  | UsageUpdatedEvent
  | NoticeEvent
  | ErrorEvent
  | PassthroughEvent
  | TurnCompletedEvent
  | CheckpointEvent;
export type EventType = ReinsEvent['type'];
export type EventOf<T extends EventType> = Extract<ReinsEvent, { type: T }>;

/** Distributes Omit over the union so each member keeps its own payload. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as an adapter hands it over: payload only; the stream stamps the envelope. */
export type EventPayload = DistributiveOmit<ReinsEvent, keyof Envelope>;
export type PayloadOf<T extends EventType> = Extract<EventPayload, { type: T }>;

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), ...envelope, ...shape });

export const ReinsEventSchema = z.discriminatedUnion('type', [
  ev('session.started', {
    cwd: z.string(),
    harnessVersion: z.string().optional(),
    binaryPath: z.string().optional(),
    model: z.string().optional(),
  }),
  ev('session.updated', {
    nativeSessionId: z.string().optional(),
    model: z.string().optional(),
    effort: z.string().optional(),
    title: z.string().optional(),
    mode: z.string().optional(),
    tools: z.array(z.string()).optional(),
    apiKeySource: z.string().optional(),
  }),
  ev('session.status', { status: z.enum(SESSION_STATUSES) }),
  ev('session.closed', {
    reason: z.enum(['requested', 'process_exited', 'error']),
    error: ErrorInfoSchema.optional(),
  }),
  ev('turn.started', { input: TurnInputSchema }),
  ev('item.started', { item: ItemSchema }),
  ev('item.completed', { item: ItemSchema }),
  ev('item.delta', {
    itemId: z.string(),
    kind: z.enum(['text', 'reasoning', 'tool_output', 'tool_input']),
    text: z.string(),
  }),
  ev('permission.requested', {
    requestId: z.string(),
    tool: ToolInfoSchema,
    input: z.unknown().optional(),
    itemId: z.string().optional(),
    options: z.array(PermissionOptionSchema),
  }),
  ev('permission.resolved', {
    requestId: z.string(),
    decision: PermissionDecisionSchema,
    by: z.enum(['client', 'timeout', 'harness']),
  }),
  ev('usage.updated', UsageSchema.shape),
  ev('notice', { kind: z.enum(NOTICE_KINDS), message: z.string(), data: z.unknown().optional() }),
  ev('error', { ...ErrorInfoSchema.shape, fatal: z.boolean() }),
  ev('passthrough', { frame: z.unknown().optional(), reason: z.enum(PASSTHROUGH_REASONS).optional() }),
  ev('turn.completed', {
    outcome: TurnOutcomeSchema,
    usage: UsageSchema.optional(),
    structuredOutput: z.unknown().optional(),
    stopReason: z.string().optional(),
  }),
  z.object({
    type: z.literal('checkpoint'),
    ...envelope,
    turnId: z.string(),
    changes: z.array(CheckpointChangeSchema),
    truncated: z.boolean().optional(),
    ref: z.string().optional(),
  }),
]);

type _EventsInSync = Assert<Equals<z.output<typeof ReinsEventSchema>, ReinsEvent>>;
type _CheckpointChangeInSync = Assert<Equals<z.output<typeof CheckpointChangeSchema>, CheckpointChange>>;
type _UsageInSync = Assert<Equals<z.output<typeof UsageSchema>, Usage>>;
type _DecisionInSync = Assert<Equals<z.output<typeof PermissionDecisionSchema>, PermissionDecision>>;

/** Validates an event that crossed a trust boundary (WebSocket, NDJSON from another process). */
export function parseEvent(value: unknown): ReinsEvent {
  return ReinsEventSchema.parse(value);
}
