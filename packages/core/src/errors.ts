// The one error class of Reins: a stable code (public, docs/architecture/contract.md), structured fields, and an `isInstance`
// check that still works when two copies of @reins/core are loaded (a marker symbol, not instanceof).
import { z } from 'zod';
import type { Assert, Equals } from './assert.js';

export const ERROR_CODES = [
  'binary_not_found',
  'harness_unhealthy',
  'auth_required',
  'unsupported_model',
  'unsupported_capability',
  'invalid_input',
  'protocol_error',
  'process_exited',
  'provider_error',
  'timeout',
  'structured_output_invalid',
  'resume_failed',
  // The daemon cannot record (full disk, I/O error): it takes no new work until it can.
  'store_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** Kinds of provider failure carried in `data.kind` of a `provider_error`. */
export type ProviderErrorKind =
  | 'rate_limited'
  | 'overloaded'
  | 'server_error'
  | 'context_window_exceeded'
  | 'bad_request'
  | 'connection_failed'
  | 'unknown';

/** The serializable shape of an error, as carried by events and outcomes. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  retryable?: boolean;
  data?: Record<string, unknown>;
}
export const ErrorInfoSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  retryable: z.boolean().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
type _ErrorInfoInSync = Assert<Equals<z.output<typeof ErrorInfoSchema>, ErrorInfo>>;

const MARKER = Symbol.for('reins.error');

export interface ReinsErrorOptions {
  harness?: string;
  /** What Reins was doing: 'thread/start', 'send', 'discover', ... */
  operation?: string;
  /** Extra facts for programs (provider error kind, auth methods, exit code, stderr tail). */
  data?: Record<string, unknown>;
  retryable?: boolean;
  cause?: unknown;
}

export class ReinsError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  readonly harness: string | undefined;
  readonly operation: string | undefined;
  readonly data: Record<string, unknown> | undefined;
  readonly retryable: boolean | undefined;

  constructor(code: ErrorCode, message: string, options: ReinsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReinsError';
    this.code = code;
    this.harness = options.harness;
    this.operation = options.operation;
    this.data = options.data;
    this.retryable = options.retryable;
  }

  static isInstance(value: unknown): value is ReinsError {
    return typeof value === 'object' && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
  }

  /** Wraps anything thrown into a ReinsError, keeping an existing one as is. */
  static from(value: unknown, fallbackCode: ErrorCode, options: ReinsErrorOptions = {}): ReinsError {
    if (ReinsError.isInstance(value)) return value;
    const message = value instanceof Error ? value.message : String(value);
    return new ReinsError(fallbackCode, message, { ...options, cause: value });
  }

  static fromInfo(info: ErrorInfo, options: Omit<ReinsErrorOptions, 'data' | 'retryable'> = {}): ReinsError {
    return new ReinsError(info.code, info.message, { ...options, data: info.data, retryable: info.retryable });
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message };
    if (this.retryable !== undefined) info.retryable = this.retryable;
    if (this.data !== undefined) info.data = this.data;
    return info;
  }
}

/** `unsupported_model` messages must contain these words (public). */
export function unsupportedModelError(model: string, detail?: string, options: ReinsErrorOptions = {}): ReinsError {
  return new ReinsError('unsupported_model', unsupportedModelMessage(model, detail), {
    ...options,
    data: { model, ...options.data },
  });
}

/**
 * What `unsupportedModelError(model, detail, { data }).toInfo()` returns, without building an Error: a
 * translator that reports it per native frame spares the stack capture.
 */
export function unsupportedModelInfo(model: string, detail?: string, data?: Record<string, unknown>): ErrorInfo {
  return { code: 'unsupported_model', message: unsupportedModelMessage(model, detail), data: { model, ...data } };
}

function unsupportedModelMessage(model: string, detail: string | undefined): string {
  return `unsupported model "${model}"${detail ? `: ${detail}` : ''}`;
}
