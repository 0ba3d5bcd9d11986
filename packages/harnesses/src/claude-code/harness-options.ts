// The options of the Claude Code harness: a module of their own, so the adapter, the query and the
// warm starts read them without importing each other.
import type { HarnessOptions } from '../runtime/index.js';

export interface ClaudeCodeHarnessOptions extends HarnessOptions {
  /** How long a permission request waits for `respondToPermission` before it is denied (default 10 min). */
  permissionTimeoutMs?: number;
  /** Stream text/reasoning/tool-input deltas (default true). */
  includePartialMessages?: boolean;
  /** After interrupt, how long Claude Code has to end the turn before Reins ends it (default 5 s). */
  interruptGraceMs?: number;
}
