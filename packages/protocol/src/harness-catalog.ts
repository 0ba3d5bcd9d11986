// The harness catalog: what `harness/list` says of each harness (discovery, health, sign-in), the
// options a session's harness is built with, and version 2's models, capabilities, the conversations
// a harness keeps itself (list, history) and a session's MCP servers.
import {
  type Assert,
  BinaryFingerprintSchema,
  type DiscoverySource,
  EffortSchema,
  type Equals,
  type HarnessId,
  HarnessIdSchema,
  type Health,
  MCP_SERVER_STATES,
  type McpServerStatus,
  type ModelInfo,
  type SessionSummary,
} from '@reins/core';
import { z } from 'zod';
import { type AuthStatus, AuthStatusSchema } from './auth.js';

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

export const McpServerStatusSchema = z.object({
  name: z.string(),
  status: z.enum(MCP_SERVER_STATES),
  error: z.string().optional(),
  tools: z.array(z.string()).optional(),
});
type _McpInSync = Assert<Equals<z.output<typeof McpServerStatusSchema>, McpServerStatus>>;
