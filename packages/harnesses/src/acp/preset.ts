// What distinguishes one ACP agent from another for Reins: how to find and launch it, and the
// quirks of the versions we tested. The generic `acp` harness is a preset built from a command.
import type { HarnessId, SessionSpec } from '@reins/core';
import type { BinarySpec } from '../runtime/index.js';
import type { TranslateOptions } from './translate.js';

export interface AcpQuirks {
  /**
   * Answer fs/read_text_file of a missing file inside cwd with empty content instead of -32002.
   * Gemini CLI 0.61.0 reads a file before writing it and gives up on a new file when the read fails.
   */
  missingFileReadsEmpty?: boolean;
  /**
   * After a cancelled turn the agent answers the next prompt at once with an empty end_turn and
   * delivers that prompt's answer during the prompt after it (claude-agent-acp 0.23.1). The fix is
   * to reopen the native session (session/close + session/resume) after a cancel, before the next
   * prompt, which drops the agent's stale queue.
   */
  reopenAfterCancel?: boolean;
  /** Models the agent lists that cannot work here (OpenCode 1.18.33 lists its cloud models offline). */
  hideModel?: (modelId: string, env: Record<string, string | undefined>) => boolean;
  /** Translation quirks (tool names and inputs the agent leaves out, status lines sent as text). */
  translate?: TranslateOptions;
}

export interface AcpPreset {
  id: HarnessId;
  displayName: string;
  binary: BinarySpec;
  /** Launch arguments for a session spec (model flags etc.), before the user's extraArgs. */
  args(spec: SessionSpec): string[];
  /** Environment the agent needs from Reins itself (never credentials). */
  env?(spec: SessionSpec): Record<string, string>;
  /**
   * Whether one process may serve several sessions (shared per launch settings, acp/hosts.ts). Off only
   * for an agent that keeps state per process rather than per session (a model, a mode): every pinned
   * agent keeps its own per session (presets/presets.real.test.ts).
   */
  multiSession: boolean;
  /**
   * How the agent takes `spec.allowedTools`, which ACP has no field for: the `_meta` to send with
   * session/new, load and resume. Absent: the agent cannot take it, and Reins refuses the field.
   */
  allowedToolsMeta?(tools: string[]): Record<string, unknown>;
  quirks: AcpQuirks;
  /** Agent versions this preset was tested with (real-CLI tier). */
  testedVersions: string[];
}
