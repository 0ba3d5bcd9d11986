// The contract between the session chassis and its adapter (docs/architecture/contract.md, "Turn rules"):
// the turn record, the adapter's `TurnHost` hooks, the chassis options and their defaults.
import type { JsonSchema, SendOptions, SessionSpec, TurnInput } from '@reins/core';

/** A turn from `send` to its terminal. */
export interface ChassisTurn<Plan = undefined> {
  readonly turnId: string;
  /** What the caller sent (shown in `turn.started` and the `user_message` item). */
  readonly input: TurnInput;
  /** What goes to the harness: `input`, plus the emulated structured-output instruction when needed. */
  readonly prompt: TurnInput;
  readonly options: SendOptions;
  /** The output schema this turn must satisfy (the turn's own, else the session's). */
  readonly outputSchema: JsonSchema | undefined;
  /** The adapter's own per-turn data, made at send time by `TurnHost.planTurn`. */
  readonly plan: Plan;
  /** A `Session.compact()` turn: `beginTurn` asks the harness to compact instead of sending `prompt`. */
  readonly compaction?: true;
}

export interface TurnHost<Plan = undefined> {
  /**
   * Per-turn data made at send time, before anything is queued (e.g. a strict schema plan). Throw a
   * ReinsError to refuse the send.
   */
  planTurn?(input: TurnInput, options: SendOptions): Plan | Promise<Plan>;
  /**
   * Delivers the turn to the harness; `turn.started` and the `user_message` item are out already.
   * A rejection ends the turn failed with that error.
   */
  beginTurn(turn: ChassisTurn<Plan>): Promise<void> | void;
  /** Asks the harness to stop the running turn; its own terminal usually follows. Absent: not possible. */
  interruptTurn?(turn: ChassisTurn<Plan>): Promise<void>;
  /** Adds input to the running turn natively; false when the harness did not take it (then it is queued). */
  steerTurn?(turn: ChassisTurn<Plan>, input: TurnInput): Promise<boolean>;
  /**
   * The chassis ended this turn itself (stalled, or no terminal within the interrupt grace): the
   * harness's own terminal for it may still arrive and must not end a later turn. A returned promise
   * (the harness has settled) holds the next queued turn back until it resolves, at most one more
   * interrupt grace period.
   */
  turnAbandoned?(turn: ChassisTurn<Plan>, why: 'stalled' | 'interrupt_grace'): void | Promise<void>;
}

export interface ChassisOptions {
  harness: string;
  /** For sentences: 'Codex', 'Claude Code'. */
  displayName: string;
  sessionId: string;
  /** The session's spec: its default output schema, its stall timeout, its cwd (checkpoints). */
  spec?: Pick<SessionSpec, 'outputSchema' | 'stallTimeoutMs' | 'checkpoints' | 'resumeFallback'> & { cwd?: string };
  /** The session's default output schema (when there is no `spec`). */
  outputSchema?: JsonSchema;
  /** How this harness does structured output: natively (the adapter hands the raw result) or emulated here. */
  structuredOutput: 'native' | 'emulated';
  /** Who emits the turn's `user_message` item: the chassis (default) or the harness's own echo. */
  userMessage?: 'chassis' | 'harness';
  /** A turn with no native frame for this long ends failed with `timeout` (default 15 min). */
  stallTimeoutMs?: number;
  /** A turn whose harness keeps retrying its provider this long without progress ends `provider_error` (unset: never). */
  retryTimeoutMs?: number;
  /** After interrupt, how long the harness has to end the turn before the chassis ends it (default 5 s). */
  interruptGraceMs?: number;
  /** Passed to the event stream. */
  keepNative?: boolean;
  now?: () => number;
}

export const DEFAULT_STALL_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;

/** The raw structured result a native harness reported, for the chassis to accept or refuse. */
export type StructuredResult = { text: string } | { value: unknown };
