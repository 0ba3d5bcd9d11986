// The Harness and Session interfaces (public, docs/architecture/contract.md): what every adapter implements and every consumer uses.
import type { BinaryFingerprint, CapabilityMatrix } from './capabilities.js';
import type { PermissionDecision, ReinsEvent } from './events.js';
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
  efforts?: Effort[];
}

export interface SessionSummary {
  nativeSessionId: string;
  cwd?: string;
  title?: string;
  updatedAt?: number;
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
  createSession(spec: SessionSpec): Promise<Session>;
}
