// A Reins posture as Claude Code's permission mode and sandbox (pure). workspace: Claude Code's own
// sandbox (bubblewrap on Linux, docs/architecture/contract.md, "Postures") runs every Bash command
// with writes confined to the cwd and no network, never asking; its edit tools take the cwd only
// (acceptEdits: an edit elsewhere would need an approval nobody can give, so it fails with Claude
// Code's own message); if the sandbox cannot run, Claude Code refuses to start (failIfUnavailable)
// instead of running commands unconfined.
import { ReinsError, type SessionSpec } from '@reins/core';
import { findOnPath } from '../runtime/find-on-path.js';
import type { CanUseTool, SdkOptions } from './wire.js';

/**
 * What Claude Code's sandbox needs on Linux: bubblewrap and socat (2.1.332 refuses to start without
 * either, "sandbox required but unavailable: ... socat not installed").
 */
export const SANDBOX_TOOLS = ['bwrap', 'socat'] as const;

/** The sandbox tools missing from `path` (a PATH value). */
export function missingSandboxTools(path: string | undefined): string[] {
  return SANDBOX_TOOLS.filter((tool) => findOnPath(tool, path) === undefined);
}

/** Refuses posture workspace up front when the sandbox cannot run, with what to install. */
export function assertWorkspaceSandbox(spec: SessionSpec, env: Record<string, string | undefined>): void {
  if (spec.posture !== 'workspace' || process.platform !== 'linux') return;
  const missing = missingSandboxTools(env.PATH);
  if (missing.length === 0) return;
  throw new ReinsError(
    'unsupported_capability',
    `Claude Code cannot hold a session to its workspace here: its sandbox needs ${missing.join(' and ')} on PATH (apt install bubblewrap socat), and without it Claude Code refuses to start.`,
    { harness: 'claude-code', operation: 'createSession', data: { field: 'posture', missing } },
  );
}

export type PostureOptions = Pick<
  SdkOptions,
  'permissionMode' | 'allowDangerouslySkipPermissions' | 'canUseTool' | 'sandbox'
>;

export function postureOptions(spec: SessionSpec, canUseTool: CanUseTool | undefined): PostureOptions {
  switch (spec.posture) {
    case 'ask':
      return {
        permissionMode: 'default',
        ...(canUseTool ? { canUseTool } : { allowDangerouslySkipPermissions: true }),
      };
    case 'workspace':
      return {
        permissionMode: 'acceptEdits',
        sandbox: {
          enabled: true,
          failIfUnavailable: true,
          autoAllowBashIfSandboxed: true,
          allowUnsandboxedCommands: false,
          network: { allowedDomains: [] },
        },
      };
    default:
      return { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true };
  }
}
