// The options every adapter factory takes (`create<Name>Harness(options)`), so the CLI, the
// conformance suite and tests construct every harness the same way.
import type { FrameTap } from './child-process.js';

export interface HarnessOptions {
  /** Skip discovery and run this binary (tests pass the pinned CLI from the testkit). */
  binaryPath?: string;
  /** "The user's environment"; default process.env. The session spec's env is added on top. */
  baseEnv?: Record<string, string | undefined>;
  /** Appended to the harness launch arguments. */
  extraArgs?: string[];
  /** Deadline for each request to the harness (ms). */
  requestTimeoutMs?: number;
  /** Sees every line to and from the harness process (fixture recording, debugging). */
  tap?: FrameTap;
  /**
   * Where the harness hosts many sessions in one process (Codex's app-server, an ACP agent, a local
   * OpenClaw gateway): sessions with the same launch settings share one, reference-counted (default
   * true). false: a process per session, for isolation. See docs/architecture/contract.md, "Warm starts and shared processes".
   */
  shareProcess?: boolean;
}

/** The child's environment: the base (default process.env) with the spec's additions on top. */
export function mergeEnv(
  base: Record<string, string | undefined> | undefined,
  additions: Record<string, string> | undefined,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(base ?? process.env)) {
    if (value !== undefined) merged[key] = value;
  }
  return { ...merged, ...additions };
}
