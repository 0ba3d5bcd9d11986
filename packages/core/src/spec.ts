// What a caller gives Reins: the session spec, a turn's input and the options of `send`.
import { z } from 'zod';
import type { Assert, Equals } from './assert.js';
import { type ImageRef, ImageRefSchema } from './items.js';

export const EFFORT_LEVELS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORT_LEVELS)[number];
export const EffortSchema = z.enum(EFFORT_LEVELS);

export const POSTURES = ['bypass', 'ask', 'workspace'] as const;
/**
 * bypass (default): the harness runs tools without asking. ask: approvals surface as permission events.
 * workspace: tools run without asking, but their writes are confined to the cwd (plus the harness's own
 * state and temp) and their commands get no network, by the harness's own sandbox; a harness without one
 * refuses it with `unsupported_capability` (docs/architecture/contract.md, "Postures").
 */
export type Posture = (typeof POSTURES)[number];

/** A JSON Schema document, kept as plain data. */
export type JsonSchema = Record<string, unknown>;
const JsonSchemaSchema = z.record(z.string(), z.unknown());

export type McpServerSpec =
  | { name: string; transport: 'stdio'; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; transport: 'http' | 'sse'; url: string; headers?: Record<string, string> };
export const McpServerSpecSchema = z.discriminatedUnion('transport', [
  z.object({
    name: z.string().min(1),
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
  }),
  z.object({
    name: z.string().min(1),
    transport: z.enum(['http', 'sse']),
    url: z.string().min(1),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

/** What a session may do when its resume fails: `new`, start a new conversation (and say so). */
export const RESUME_FALLBACKS = ['new'] as const;
export type ResumeFallback = (typeof RESUME_FALLBACKS)[number];

export interface SessionSpec {
  /** Absolute working directory of the session. */
  cwd: string;
  model?: string;
  effort?: Effort;
  /**
   * Continue an existing conversation; failing that is `resume_failed`, never a silent fresh start.
   * With `fork`, the session starts a NEW conversation holding a copy of that one's history (the
   * harness's own fork); a harness without one refuses it with `unsupported_capability`. With
   * `fallback: 'new'` the caller allows a new conversation when that one cannot be continued: the
   * session starts fresh and says so (`resumeFallback`, and a `notice` of kind `warning` among its first events).
   */
  resume?: { nativeSessionId: string; fork?: boolean; fallback?: ResumeFallback };
  /**
   * Set by Reins on a session it started in place of a resume that failed (`resume.fallback`): which
   * fallback, the conversation it could not continue, and the harness's reason.
   */
  resumeFallback?: { fallback: ResumeFallback; nativeSessionId: string; reason: string };
  /** Added to the user's environment for the harness process. */
  env?: Record<string, string>;
  posture?: Posture;
  /** Default output schema for every turn of this session (a turn's own schema wins). */
  outputSchema?: JsonSchema;
  /** Do not persist the conversation (utility turns that must not be resumable). */
  ephemeral?: boolean;
  allowedTools?: string[];
  systemPrompt?: { append: string };
  mcpServers?: McpServerSpec[];
  /** A turn with no native frame for this long ends `failed` with `timeout` (default 15 min). */
  stallTimeoutMs?: number;
  /**
   * Record the work tree before and after every turn and emit `checkpoint` events (docs/architecture/contract.md,
   * "Checkpoints"). Absent: on when the cwd is in a git work tree, unless the environment says REINS_CHECKPOINTS=off.
   * `true` in a folder outside git: kept in the folder's private repository under REINS_HOME.
   */
  checkpoints?: boolean;
}
export const SessionSpecSchema = z.object({
  cwd: z.string().min(1),
  model: z.string().min(1).optional(),
  effort: EffortSchema.optional(),
  resume: z
    .object({
      nativeSessionId: z.string().min(1),
      fork: z.boolean().optional(),
      fallback: z.enum(RESUME_FALLBACKS).optional(),
    })
    .optional(),
  resumeFallback: z
    .object({ fallback: z.enum(RESUME_FALLBACKS), nativeSessionId: z.string(), reason: z.string() })
    .optional(),
  env: z.record(z.string(), z.string()).optional(),
  posture: z.enum(POSTURES).optional(),
  outputSchema: JsonSchemaSchema.optional(),
  ephemeral: z.boolean().optional(),
  allowedTools: z.array(z.string()).optional(),
  systemPrompt: z.object({ append: z.string() }).optional(),
  mcpServers: z.array(McpServerSpecSchema).optional(),
  stallTimeoutMs: z.number().int().positive().optional(),
  checkpoints: z.boolean().optional(),
});

export interface FileRef {
  path: string;
  /** Optional line range the reference points at. */
  lines?: { start: number; end?: number };
}
export const FileRefSchema = z.object({
  path: z.string().min(1),
  lines: z.object({ start: z.number().int().positive(), end: z.number().int().positive().optional() }).optional(),
});

export interface TurnInput {
  text: string;
  images?: ImageRef[];
  files?: FileRef[];
}
export const TurnInputSchema = z.object({
  text: z.string(),
  images: z.array(ImageRefSchema).optional(),
  files: z.array(FileRefSchema).optional(),
});

export type DeliveryMode = 'queue' | 'steer';
export interface SendOptions {
  /** queue (default): run after the current turn. steer: add to the running turn where the harness can. */
  mode?: DeliveryMode;
  /** When steering is impossible: 'queue' (default) queues and says so; 'fail' throws unsupported_capability. */
  steerFallback?: 'queue' | 'fail';
  outputSchema?: JsonSchema;
  /** The caller's id for this message; the turn's `user_message` item carries it back. */
  clientMessageId?: string;
}
export const SendOptionsSchema = z.object({
  mode: z.enum(['queue', 'steer']).optional(),
  steerFallback: z.enum(['queue', 'fail']).optional(),
  outputSchema: JsonSchemaSchema.optional(),
  clientMessageId: z.string().min(1).max(256).optional(),
});

/** How `send` delivered the input. */
export interface SendResult {
  turnId: string;
  delivery: 'started' | 'queued' | 'steered';
}

/** How a setting change was applied, so callers know what it cost. */
export interface SettingChange {
  applied: 'live' | 'next_turn' | 'restart';
}

type _SpecInSync = Assert<Equals<z.output<typeof SessionSpecSchema>, SessionSpec>>;
type _InputInSync = Assert<Equals<z.output<typeof TurnInputSchema>, TurnInput>>;
type _SendInSync = Assert<Equals<z.output<typeof SendOptionsSchema>, SendOptions>>;
type _McpInSync = Assert<Equals<z.output<typeof McpServerSpecSchema>, McpServerSpec>>;
