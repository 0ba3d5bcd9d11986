// The Harness and Session interfaces (public, docs/architecture/contract.md): what every adapter implements and every consumer uses.
import type { BinaryFingerprint, CapabilityMatrix } from './capabilities.js';
import type { CheckpointChange, PermissionDecision, ReinsEvent } from './events.js';
import type { HarnessId } from './harness-ids.js';
import type { Item } from './items.js';
import type { Effort, SendOptions, SendResult, SessionSpec, SettingChange, TurnInput } from './spec.js';

export type DiscoverySource = 'env' | 'path' | 'login_shell' | 'known_location' | 'explicit';

export interface DiscoveredBinary extends BinaryFingerprint {
  source: DiscoverySource;
}

export type Discovery = { found: true; binary: DiscoveredBinary } | { found: false; searched: string[]; hint: string };

export type HealthStatus = 'ready' | 'not_installed' | 'unhealthy' | 'auth_required';

export interface Health {
  status: HealthStatus;
  binary?: DiscoveredBinary;
  /** What went wrong, in a sentence. */
  message?: string;
  /** What the user should run or set to fix it. */
  fix?: string;
  /** Auth method names the harness offers, when it told us. */
  authMethods?: string[];
}

export interface ModelInfo {
  id: string;
  displayName?: string;
  isDefault?: boolean;
  /** The effort levels this model takes, when the harness says. */
  efforts?: Effort[];
  /** The effort the harness uses for this model when none is given, when the harness says. */
  defaultEffort?: Effort;
}

export interface SessionSummary {
  nativeSessionId: string;
  cwd?: string;
  title?: string;
  updatedAt?: number;
}

/** One MCP server of a live session, as the harness itself reports it (never guessed). */
export interface McpServerStatus {
  name: string;
  status: McpServerState;
  /** What the harness said went wrong (failed, needs_auth). */
  error?: string;
  /** Tool names the server offers, when the harness lists them. */
  tools?: string[];
}
export const MCP_SERVER_STATES = ['connected', 'pending', 'failed', 'needs_auth', 'disabled'] as const;
export type McpServerState = (typeof MCP_SERVER_STATES)[number];

/** Whether the harness is signed in, as its own status check says (Reins never reads a credential). */
export interface AuthProbe {
  status: AuthState;
  /** The account the harness names (an e-mail or org), when it names one. */
  account?: string;
  /** Sign-in methods the harness offers (ACP `authMethods`, Codex login kinds). */
  methods?: AuthMethod[];
  /** What the status check said, when it explains something (signed out, unknown). */
  message?: string;
}
export const AUTH_STATES = ['signed_in', 'signed_out', 'unknown'] as const;
export type AuthState = (typeof AUTH_STATES)[number];
export interface AuthMethod {
  id: string;
  name?: string;
  description?: string;
}

/**
 * A sign-in started by the harness's own command or protocol. It shows what the harness gave the
 * user to do (a URL, a device code); `completed` settles when the harness says the ceremony ended
 * (true: it reported success), `cancel` ends it and every process it started.
 */
export interface LoginCeremony {
  url?: string;
  userCode?: string;
  /** One sentence: what the user does next. */
  instructions: string;
  completed: Promise<{ ok: boolean; message?: string }>;
  cancel(): Promise<void>;
}

/** Sign-in as the harness does it: a status check and, where the harness has one, a login ceremony. */
export interface HarnessAuth {
  status(): Promise<AuthProbe>;
  /** Absent when the harness has no sign-in Reins can drive (the user runs `command`). */
  login?(options: { method?: string }): Promise<LoginCeremony>;
  /** The command a user runs to sign in themselves. */
  command?: string;
}

/** What `Session.diff` measured: one turn's changes, or (no turn given) every checkpointed turn's so far. */
export interface SessionDiff {
  /** The turn, or undefined for the whole session (from before its first turn to after its last). */
  turnId?: string;
  changes: CheckpointChange[];
}

export interface RevertOptions {
  /** Put the files back even where they changed since the turn (those later changes are lost). */
  force?: boolean;
}

/** What `Session.revert` put back (docs/architecture/contract.md, "Checkpoints"). */
export interface RevertResult {
  turnId: string;
  /** The paths restored to their state before the turn. */
  files: string[];
  /**
   * reverted: the harness's conversation no longer holds the turn (nor later ones). forked: the session
   * continues in a new conversation from before the turn. unchanged: only the files went back.
   */
  conversation: 'reverted' | 'forked' | 'unchanged';
}

export interface Session {
  /** Reins-owned id, stable from creation (the native id may only be known later). */
  readonly id: string;
  readonly harness: HarnessId;
  /** The harness's own conversation id once known; use it with `resume`. */
  readonly nativeSessionId: string | undefined;
  /** Every event of this session in order; one consumer. */
  readonly events: AsyncIterable<ReinsEvent>;
  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult>;
  /** Stops the running turn; it ends with a cancelled outcome and the session stays usable. */
  interrupt(): Promise<void>;
  setModel(model: string): Promise<SettingChange>;
  setEffort(effort: Effort): Promise<SettingChange>;
  respondToPermission(requestId: string, decision: PermissionDecision): Promise<void>;
  /** The MCP servers of this session as the harness reports them; absent where it reports none. */
  mcpStatus?(): Promise<McpServerStatus[]>;
  /**
   * The measured changes of a turn (or of the whole session), from its checkpoints. Absent where the
   * adapter keeps no checkpoints; throws `unsupported_capability` when the cwd is not in a git work tree.
   */
  diff?(turnId?: string): Promise<SessionDiff>;
  /**
   * Puts the files back as they were before `turnId` (that turn and every later one undone), and the
   * conversation where the harness can. Refuses with `invalid_input` when a file changed since, unless
   * `force`; refuses while a turn runs.
   */
  revert?(turnId: string, options?: RevertOptions): Promise<RevertResult>;
  /**
   * Asks the harness to compact its conversation now: a turn of its own (input `/compact`, a synthetic
   * `user_message`, one `compaction` item, its terminal); resolves with that turn's id once it started.
   * Refuses with `invalid_input` (`data.reason: turn_running`) while a turn runs or waits. Absent where
   * the harness has no compaction on request (docs/architecture/contract.md, "Compaction").
   */
  compact?(): Promise<SendResult>;
  /** Ends the harness process (stdin end, SIGTERM, SIGKILL on the group); idempotent. */
  close(): Promise<void>;
}

export interface Harness {
  readonly id: HarnessId;
  readonly displayName: string;
  discover(): Promise<Discovery>;
  health(): Promise<Health>;
  capabilities(): Promise<CapabilityMatrix>;
  models?(): Promise<ModelInfo[]>;
  listSessions?(options: { cwd?: string }): Promise<SessionSummary[]>;
  history?(nativeSessionId: string, options?: { cwd?: string }): Promise<Item[]>;
  /** Sign-in status and ceremony, where the harness has them. */
  readonly auth?: HarnessAuth;
  /**
   * Keeps `count` harness processes started and initialised ahead, so the next sessions skip the
   * cold start; each one taken is replaced at once. Resolves once they are ready (rejects when one
   * could not start); `warm(0)` stops the waiting ones. Absent where the harness has no warm starts.
   * See docs/architecture/contract.md, "Warm starts and shared processes".
   */
  warm?(count: number): Promise<void>;
  createSession(spec: SessionSpec): Promise<Session>;
}
