// Protocol version 2, the daemon as a UI's whole backend (docs/architecture/daemon.md, "A UI's
// backend"): the harness catalog (models, capabilities, auth), the conversations a harness keeps
// itself (list, history), sign-in ceremonies, and a session's fork and MCP status. Types and zod
// schemas only (browser-safe); protocol.ts puts these methods into METHODS. Answers are bare values
// (a list, a matrix) unless they carry more than one thing.
import {
  type Assert,
  AUTH_STATES,
  type AuthMethod,
  type AuthState,
  CapabilityMatrixSchema,
  EffortSchema,
  type Equals,
  type HarnessId,
  HarnessIdSchema,
  ItemSchema,
  MCP_SERVER_STATES,
  type McpServerStatus,
  type ModelInfo,
  type SessionSummary,
} from '@reins/core';
import { z } from 'zod';

export const HarnessRefSchema = z.object({ harness: HarnessIdSchema });
export interface HarnessRef {
  harness: HarnessId;
}

export const ModelInfoSchema = z.object({
  id: z.string().min(1),
  displayName: z.string().optional(),
  isDefault: z.boolean().optional(),
  efforts: z.array(EffortSchema).optional(),
  defaultEffort: EffortSchema.optional(),
});
type _ModelInSync = Assert<Equals<z.output<typeof ModelInfoSchema>, ModelInfo>>;

/** `harness/sessions`: newest first; a page is `limit` entries (default 50, at most 500) from `offset`. */
export interface HarnessSessionsParams {
  harness: HarnessId;
  cwd?: string;
  limit?: number;
  offset?: number;
}
export const HARNESS_SESSIONS_PAGE = { default: 50, max: 500 } as const;
export const HarnessSessionsParamsSchema = z.object({
  harness: HarnessIdSchema,
  cwd: z.string().min(1).optional(),
  limit: z.number().int().positive().max(HARNESS_SESSIONS_PAGE.max).optional(),
  offset: z.number().int().nonnegative().optional(),
});
type _SessionsParamsInSync = Assert<Equals<z.output<typeof HarnessSessionsParamsSchema>, HarnessSessionsParams>>;

export const SessionSummarySchema = z.object({
  nativeSessionId: z.string().min(1),
  cwd: z.string().optional(),
  title: z.string().optional(),
  updatedAt: z.number().optional(),
});
type _SummaryInSync = Assert<Equals<z.output<typeof SessionSummarySchema>, SessionSummary>>;

export interface HarnessHistoryParams {
  harness: HarnessId;
  nativeSessionId: string;
  cwd?: string;
}
export const HarnessHistoryParamsSchema = z.object({
  harness: HarnessIdSchema,
  nativeSessionId: z.string().min(1),
  cwd: z.string().min(1).optional(),
});
type _HistoryParamsInSync = Assert<Equals<z.output<typeof HarnessHistoryParamsSchema>, HarnessHistoryParams>>;

export const AuthMethodSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
});
type _MethodInSync = Assert<Equals<z.output<typeof AuthMethodSchema>, AuthMethod>>;

/** `harness/auth/status`, and each harness's `auth` in `harness/list`. */
export interface AuthStatus {
  harness: HarnessId;
  /** `signed_in`, `signed_out`, or `unknown` (the harness has no check Reins can run, or it failed). */
  status: AuthState;
  account?: string;
  methods?: AuthMethod[];
  message?: string;
  /** The command a user can run to sign in themselves. */
  command?: string;
  /** A sign-in ceremony in progress for this harness. */
  ceremonyId?: string;
}
export const AuthStatusSchema = z.object({
  harness: HarnessIdSchema,
  status: z.enum(AUTH_STATES),
  account: z.string().optional(),
  methods: z.array(AuthMethodSchema).optional(),
  message: z.string().optional(),
  command: z.string().optional(),
  ceremonyId: z.string().optional(),
});
type _AuthInSync = Assert<Equals<z.output<typeof AuthStatusSchema>, AuthStatus>>;

export interface AuthLoginParams {
  harness: HarnessId;
  /** One of the methods the harness advertises (ACP agents; Codex: `chatgpt`, `device`). */
  method?: string;
}
export const AuthLoginParamsSchema = z.object({ harness: HarnessIdSchema, method: z.string().min(1).optional() });
type _LoginParamsInSync = Assert<Equals<z.output<typeof AuthLoginParamsSchema>, AuthLoginParams>>;

export interface AuthCeremonyInfo {
  ceremonyId: string;
  /** Where the user signs in, as the harness printed or returned it. */
  url?: string;
  /** A code the user types at `url`, when the harness gives one. */
  userCode?: string;
  instructions: string;
}
export const AuthCeremonyInfoSchema = z.object({
  ceremonyId: z.string().min(1),
  url: z.string().optional(),
  userCode: z.string().optional(),
  instructions: z.string(),
});
type _CeremonyInSync = Assert<Equals<z.output<typeof AuthCeremonyInfoSchema>, AuthCeremonyInfo>>;

export const AuthCancelParamsSchema = z.object({ ceremonyId: z.string().min(1) });

export const McpServerStatusSchema = z.object({
  name: z.string(),
  status: z.enum(MCP_SERVER_STATES),
  error: z.string().optional(),
  tools: z.array(z.string()).optional(),
});
type _McpInSync = Assert<Equals<z.output<typeof McpServerStatusSchema>, McpServerStatus>>;

/** Daemon -> every version 2 client: a harness's sign-in state changed (a ceremony ended, a re-probe saw it). */
export const HARNESS_AUTH_CHANGED = 'harness/authChanged';
export interface HarnessAuthChangedParams {
  harness: HarnessId;
  status: AuthState;
  account?: string;
}
export const HarnessAuthChangedParamsSchema = z.object({
  harness: HarnessIdSchema,
  status: z.enum(AUTH_STATES),
  account: z.string().optional(),
});
type _ChangedInSync = Assert<Equals<z.output<typeof HarnessAuthChangedParamsSchema>, HarnessAuthChangedParams>>;

const SessionRefSchema = z.object({ sessionId: z.string().min(1) });
const ForkResultSchema = z.object({
  sessionId: z.string().min(1),
  harness: HarnessIdSchema,
  nativeSessionId: z.string().optional(),
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
