// A Reins posture as Claude Code's permission mode and sandbox (pure). workspace: Claude Code's own
// sandbox (bubblewrap on Linux, docs/architecture/contract.md, "Postures") runs every Bash command
// with writes confined to the cwd and no network, never asking; its edit tools take the cwd only
// (acceptEdits: an edit elsewhere would need an approval nobody can give, so it fails with Claude
// Code's own message); if the sandbox cannot run, Claude Code refuses to start (failIfUnavailable)
// instead of running commands unconfined.
import type { SessionSpec } from '@reins/core';
import type { CanUseTool, SdkOptions } from './wire.js';

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
