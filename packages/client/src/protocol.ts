// The Reins daemon wire protocol, version 2: the one home of its types and zod schemas (the daemon
// imports them from here). JSON-RPC 2.0, one JSON message per WebSocket text frame. A connection
// must call `initialize` with the daemon's token first; every failure is a JSON-RPC error whose
// `data` is the Reins ErrorInfo, so clients branch on `data.code`, never on message text.
// Version 2 keeps every version 1 method; a client that asks for no version at `initialize` is a
// version 1 client and gets version 1 answers (the v1 shapes are kept here too, for the daemon).
// Optional wire features are asked for at `initialize` (`capabilities`: `eventBatches`, replays as
// session/events); a client that asks for none gets the version 2 wire unchanged.
import {
  type Assert,
  BinaryFingerprintSchema,
  type DiscoverySource,
  type Effort,
  EffortSchema,
  type Equals,
  type ErrorCode,
  type ErrorInfo,
  ErrorInfoSchema,
  type HarnessId,
  HarnessIdSchema,
  type Health,
  type PermissionDecision,
  PermissionDecisionSchema,
  type ReinsEvent,
  SESSION_STATUSES,
  type SendOptions,
  SendOptionsSchema,
  type SendResult,
  type SessionSpec,
  SessionSpecSchema,
  type SessionStatus,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
} from '@reins/core';
import { z } from 'zod';
import { type AuthStatus, AuthStatusSchema, HARNESS_METHODS } from './harness-protocol.js';

/** The newest protocol version this package speaks. */
export const PROTOCOL_VERSION = 2;
/** Every version a daemon of this package can serve (negotiated at `initialize`). */
export const SUPPORTED_PROTOCOL_VERSIONS = [1, 2] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/**
 * WebSocket close codes the daemon uses, so a client can tell why it was dropped.
 * 1008 policy: auth failed or no initialize in time; 1009 a frame over the size limit (64 KiB
 * before initialize); 1013 the client did not read its answers and events fast enough (reconnect
 * and resubscribe with afterSeq); 1001 the daemon is shutting down.
 */
export const CLOSE_CODES = { goingAway: 1001, policy: 1008, tooBig: 1009, slowConsumer: 1013 } as const;

/** The file a running daemon writes under $REINS_HOME (default ~/.reins), mode 0600. */
export const DAEMON_FILE = 'daemon.json';

export interface DaemonInfo {
  /** ws://127.0.0.1:<port> */
  url: string;
  pid: number;
  /** The secret every connection passes to `initialize`; new on each start. */
  token: string;
  protocolVersion: number;
  /** ms since epoch. */
  startedAt: number;
}
export const DaemonInfoSchema = z.object({
  url: z.string().min(1),
  pid: z.number().int().positive(),
  token: z.string().min(1),
  protocolVersion: z.number().int().positive(),
  startedAt: z.number(),
});
type _DaemonInfoInSync = Assert<Equals<z.output<typeof DaemonInfoSchema>, DaemonInfo>>;

// ---- JSON-RPC 2.0 envelope ----------------------------------------------------------------------

export type RequestId = string | number;
const RequestIdSchema = z.union([z.string(), z.number()]);

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}
export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}
export interface RpcErrorObject {
  code: number;
  message: string;
  data: ErrorInfo;
}
export type RpcResponse =
  | { jsonrpc: '2.0'; id: RequestId | null; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId | null; error: RpcErrorObject };

/** What a daemon accepts: a request (with id) or a notification (without). */
export const RpcIncomingSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema.optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

/** What a client accepts: a response to one of its requests, or a notification. */
export const RpcResponseSchema = z.union([
  z.object({
    jsonrpc: z.literal('2.0'),
    id: RequestIdSchema.nullable(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  }),
  z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema, result: z.unknown() }),
]);
export const RpcNotificationSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

/** JSON-RPC error numbers; the Reins `data.code` is what programs should branch on. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Any Reins failure (see data.code). */
  reins: -32000,
  authRequired: -32001,
} as const;

export function rpcErrorNumber(code: ErrorCode): number {
  if (code === 'auth_required') return RPC_ERROR.authRequired;
  if (code === 'invalid_input') return RPC_ERROR.invalidParams;
  return RPC_ERROR.reins;
}

// ---- method payloads ------------------------------------------------------------------------------

export interface ClientInfo {
  name: string;
  version: string;
}
/**
 * Optional features of the wire a client asks for at `initialize` (version 2); the daemon answers
 * the ones it granted. Unknown keys are ignored (a newer client may ask for more), and a client
 * that asks for nothing gets the version 2 wire unchanged.
 */
export interface ClientCapabilities {
  /**
   * The client takes `session/events` (many events of one session in one notification): the
   * daemon then sends a replay that way instead of one `session/event` per event.
   */
  eventBatches?: boolean;
}
export const ClientCapabilitiesSchema = z.object({ eventBatches: z.boolean().optional() });
type _CapabilitiesInSync = Assert<Equals<z.output<typeof ClientCapabilitiesSchema>, ClientCapabilities>>;

export interface InitializeParams {
  token: string;
  client?: ClientInfo;
  /** The newest protocol version the client speaks; absent means version 1. */
  protocolVersion?: number;
  /** Optional wire features it takes (version 2 only; a version 1 connection gets none). */
  capabilities?: ClientCapabilities;
}
export const InitializeParamsSchema = z.object({
  token: z.string().min(1),
  client: z.object({ name: z.string().min(1), version: z.string().min(1) }).optional(),
  protocolVersion: z.number().int().positive().optional(),
  capabilities: ClientCapabilitiesSchema.optional(),
});
type _InitializeInSync = Assert<Equals<z.output<typeof InitializeParamsSchema>, InitializeParams>>;

/** The version a daemon serves to a client that asked for `requested` (absent: version 1). */
export function negotiateProtocolVersion(requested: number | undefined): ProtocolVersion {
  if (requested === undefined || requested < 2) return 1;
  return 2;
}

/**
 * What a daemon grants of the capabilities a client asked for on a connection of `version`: every
 * key it knows, true only when asked for and served (batches need version 2).
 */
export function negotiateCapabilities(
  version: ProtocolVersion,
  requested: ClientCapabilities | undefined,
): Required<ClientCapabilities> {
  return { eventBatches: version >= 2 && requested?.eventBatches === true };
}

export interface InitializeResult {
  /** The version this connection speaks from now on (see negotiateProtocolVersion). */
  protocolVersion: number;
  reinsVersion: string;
  /** Harness ids this daemon can start sessions for. */
  harnesses: HarnessId[];
  /**
   * What the daemon granted of `capabilities` (present when the client sent `capabilities`; a
   * daemon that predates them never sends it: the client then gets single events only).
   */
  capabilities?: ClientCapabilities;
}
export const InitializeResultSchema = z.object({
  protocolVersion: z.number().int().positive(),
  reinsVersion: z.string(),
  harnesses: z.array(HarnessIdSchema),
  capabilities: ClientCapabilitiesSchema.optional(),
});

/** Methods without parameters take none, or an empty object. */
export const NoParamsSchema = z.object({}).optional();
export type NoParams = z.input<typeof NoParamsSchema>;
/** Methods that only acknowledge answer an empty object. */
export const AckSchema = z.object({});
export type Ack = z.output<typeof AckSchema>;

const DiscoverySourceSchema = z.enum(['env', 'path', 'login_shell', 'known_location', 'explicit']);
type _SourceInSync = Assert<Equals<z.output<typeof DiscoverySourceSchema>, DiscoverySource>>;

export const HealthSchema = z.object({
  status: z.enum(['ready', 'not_installed', 'unhealthy', 'auth_required']),
  binary: BinaryFingerprintSchema.extend({ source: DiscoverySourceSchema }).optional(),
  message: z.string().optional(),
  fix: z.string().optional(),
  authMethods: z.array(z.string()).optional(),
});
type _HealthInSync = Assert<Equals<z.output<typeof HealthSchema>, Health>>;

export interface HarnessListing {
  id: HarnessId;
  displayName: string;
  /** Where the binary is; `hint` says how to install or point Reins at it when not found. */
  discovery: { found: boolean; path?: string; version?: string; source?: DiscoverySource; hint?: string };
  health: Health;
  /** Whether it is signed in (absent when the daemon did not probe: not installed, or no check). */
  auth?: Omit<AuthStatus, 'harness'>;
}
export const HarnessListingSchema = z.object({
  id: HarnessIdSchema,
  displayName: z.string(),
  discovery: z.object({
    found: z.boolean(),
    path: z.string().optional(),
    version: z.string().optional(),
    source: DiscoverySourceSchema.optional(),
    hint: z.string().optional(),
  }),
  health: HealthSchema,
  auth: AuthStatusSchema.omit({ harness: true }).optional(),
});
type _ListingInSync = Assert<Equals<z.output<typeof HarnessListingSchema>, HarnessListing>>;

/**
 * Options for the harness factory, as JSON (the same fields `createHarness(id, options)` takes;
 * harness-specific ones such as Codex's `interruptGraceMs` ride along).
 */
export const WireHarnessOptionsSchema = z.looseObject({
  binaryPath: z.string().min(1).optional(),
  /** Replaces the daemon's environment as the harness's base environment (hermetic homes). */
  baseEnv: z.record(z.string(), z.string()).optional(),
  extraArgs: z.array(z.string()).optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
});
export type WireHarnessOptions = z.output<typeof WireHarnessOptionsSchema>;

/**
 * Where a session may run (cluster mode): every label must be among a worker's `--labels`, e.g.
 * `{ host: "build-3" }` for a workspace that lives on one machine. A single daemon keeps none.
 */
export type SessionLabels = Record<string, string>;
export const SessionLabelsSchema = z.record(z.string().min(1).max(128), z.string().min(1).max(256));

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
  status: HostedSessionStatusSchema,
  lastSeq: z.number().int().nonnegative(),
  createdAt: z.number(),
  updatedAt: z.number(),
  worker: z.string().optional(),
  labels: SessionLabelsSchema.optional(),
});
type _SessionListingInSync = Assert<Equals<z.output<typeof SessionListingSchema>, SessionListing>>;

// ---- version 1 shapes (served to clients that did not ask for version 2) -------------------------

/** Version 1 states: the harness's own lifecycle signal, or `closed`. */
export type V1SessionStatus = SessionStatus | 'closed';
export const V1SessionStatusSchema = z.enum([...SESSION_STATUSES, 'closed']);

/** How a version 2 state reads to a version 1 client (which knows only its four). */
export function v1Status(status: HostedSessionStatus): V1SessionStatus {
  switch (status) {
    case 'starting':
    case 'dormant':
      // No process right now, but a send works (it resumes): to a v1 client that is idle.
      return 'idle';
    case 'lost':
      return 'closed';
    default:
      return status;
  }
}

export interface V1SessionListing {
  sessionId: string;
  harness: HarnessId;
  nativeSessionId?: string;
  status: V1SessionStatus;
  lastSeq: number;
  createdAt: number;
}
export const V1SessionListingSchema = z.object({
  sessionId: z.string(),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
  status: V1SessionStatusSchema,
  lastSeq: z.number().int().nonnegative(),
  createdAt: z.number(),
});
type _V1ListingInSync = Assert<Equals<z.output<typeof V1SessionListingSchema>, V1SessionListing>>;

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
/** The version 1 shape of the same answer. */
export const V1SubscribeResultSchema = SubscribeResultSchema.extend({ status: V1SessionStatusSchema });
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
  ...HARNESS_METHODS,
} as const;
export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.output<(typeof METHODS)[M]['params']>;
export type ResultOf<M extends MethodName> = z.output<(typeof METHODS)[M]['result']>;
export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

export function isMethodName(value: string): value is MethodName {
  return Object.hasOwn(METHODS, value);
}

// ---- notifications --------------------------------------------------------------------------------

/** Daemon -> client: one event of a subscribed session, in seq order, no gaps, no duplicates. */
export const SESSION_EVENT = 'session/event';
export interface SessionEventParams {
  sessionId: string;
  event: ReinsEvent;
}
/**
 * Checked loosely on purpose: a newer daemon may add event types, and a client should pass them on
 * rather than drop the connection. The envelope (type, seq) is what ordering depends on.
 */
export const SessionEventParamsSchema = z.object({
  sessionId: z.string().min(1),
  event: z.looseObject({ type: z.string().min(1), seq: z.number().int().positive(), sessionId: z.string() }),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isFilledString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * session/event params, checked the way SessionEventParamsSchema checks them but without the copy
 * a zod parse makes of every event (this is every client's hot path). What passes the structural
 * check is handed on as it came, the event in the daemon's own key order; anything else goes to
 * the schema, so a bad frame is judged exactly as before. undefined: not session/event params.
 */
export function readSessionEventParams(params: unknown): SessionEventParams | undefined {
  if (isRecord(params) && isFilledString(params.sessionId) && isEventEnvelope(params.event)) {
    return params as unknown as SessionEventParams;
  }
  const parsed = SessionEventParamsSchema.safeParse(params);
  return parsed.success ? (parsed.data as unknown as SessionEventParams) : undefined;
}

/**
 * Daemon -> a client that was granted `eventBatches`: consecutive events of one subscribed session
 * in one notification (a replay page), each event exactly as `session/event` would carry it, in seq
 * order with no gap; the next notification of the session goes on after the last of them. A batch
 * holds at least one event; the daemon bounds it by count and bytes (docs/architecture/daemon.md).
 */
export const SESSION_EVENTS = 'session/events';
export interface SessionEventsParams {
  sessionId: string;
  events: ReinsEvent[];
}
export const SessionEventsParamsSchema = z.object({
  sessionId: z.string().min(1),
  events: z.array(SessionEventParamsSchema.shape.event).min(1),
});

function isEventEnvelope(event: unknown): boolean {
  return (
    isRecord(event) &&
    isFilledString(event.type) &&
    Number.isSafeInteger(event.seq) &&
    (event.seq as number) > 0 &&
    typeof event.sessionId === 'string'
  );
}

/**
 * session/events params, checked like readSessionEventParams: structurally, each event as
 * `session/event` checks it, with no copy; anything else goes to the schema. undefined: not
 * session/events params (the whole batch is refused, never part of it).
 */
export function readSessionEventsParams(params: unknown): SessionEventsParams | undefined {
  if (isRecord(params) && isFilledString(params.sessionId) && Array.isArray(params.events)) {
    const events = params.events as unknown[];
    let fits = events.length > 0;
    for (let index = 0; fits && index < events.length; index++) fits = isEventEnvelope(events[index]);
    if (fits) return params as unknown as SessionEventsParams;
  }
  const parsed = SessionEventsParamsSchema.safeParse(params);
  return parsed.success ? (parsed.data as unknown as SessionEventsParams) : undefined;
}

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

// ---- errors ---------------------------------------------------------------------------------------

/** Reads the Reins ErrorInfo out of a JSON-RPC error (undefined when it carries none). */
export function errorInfoOf(data: unknown): ErrorInfo | undefined {
  const parsed = ErrorInfoSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

/** The fields a zod failure names, in one line: `spec.cwd: Too small: expected ...`. */
export function issuesSentence(error: z.ZodError, root = 'params'): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.length > 0 ? `${root}.${issue.path.map(String).join('.')}` : root;
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return `${parts.join('; ')}${more}`;
}

/** The sentence an `invalid_input` for bad params carries. */
export function describeInvalidParams(error: z.ZodError, method: string): string {
  return `Invalid params for ${method}: ${issuesSentence(error)}.`;
}
