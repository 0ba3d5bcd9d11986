// `reins doctor`'s postures: which of bypass, ask and workspace a found harness can take on this machine
// (docs/architecture/contract.md, "Postures"). What the adapter implements comes from its capability
// matrix (approvals: ask, sandbox: workspace); whether the sandbox can run here is checked per harness.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapabilityMatrix, HarnessId, Posture } from '@reins/core';
import { missingSandboxTools, reinsHome } from '@reins/harnesses';

export interface PostureCheck {
  state: 'yes' | 'no' | 'unknown';
  /** Why not (or why unknown), and what to do about it. */
  reason?: string;
}

export type PostureReport = Record<Posture, PostureCheck>;

export interface PostureContext {
  id: HarnessId;
  capabilities: CapabilityMatrix;
  binaryPath: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
}

export async function checkPostures(context: PostureContext): Promise<PostureReport> {
  const implemented = (key: 'approvals' | 'sandbox') => context.capabilities[key].implemented.state === 'yes';
  return {
    bypass: { state: 'yes' },
    ask: implemented('approvals')
      ? { state: 'yes' }
      : { state: 'no', reason: `Reins surfaces no approvals for ${context.id}: its tools run without asking.` },
    workspace: implemented('sandbox')
      ? await workspaceHere(context)
      : { state: 'no', reason: `unsupported: Reins has no sandbox for ${context.id} (posture workspace is refused).` },
  };
}

async function workspaceHere(context: PostureContext): Promise<PostureCheck> {
  switch (context.id) {
    case 'claude-code': {
      if (process.platform !== 'linux') return { state: 'yes' };
      const missing = missingSandboxTools(context.env.PATH);
      if (missing.length === 0) return { state: 'yes' };
      return {
        state: 'no',
        reason: `Claude Code's sandbox needs ${missing.join(' and ')} on PATH (apt install bubblewrap socat).`,
      };
    }
    case 'codex':
      return process.platform === 'linux' ? probeCodexSandbox(context) : { state: 'yes' };
    default:
      return { state: 'unknown', reason: `doctor has no check for ${context.id}'s sandbox.` };
  }
}

/**
 * Runs Codex's own Linux sandbox (`codex sandbox`, workspace-write) on a command that writes one file
 * in its cwd and one beside it: only the first may land. The probe folder is under REINS_HOME, since
 * Codex's workspace-write also lets commands write /tmp and $TMPDIR (a write there proves nothing).
 */
async function probeCodexSandbox(context: PostureContext): Promise<PostureCheck> {
  const home = reinsHome(context.env);
  const tmp = [context.env.TMPDIR, '/tmp'].filter((dir): dir is string => Boolean(dir));
  if (tmp.some((dir) => home === dir || home.startsWith(`${dir.replace(/\/$/, '')}/`))) {
    return { state: 'unknown', reason: `REINS_HOME (${home}) is under a temp folder Codex lets commands write.` };
  }
  await mkdir(home, { recursive: true });
  const probe = await mkdtemp(join(home, 'doctor-sandbox-'));
  try {
    const inside = join(probe, 'cwd');
    await mkdir(inside);
    const args = ['sandbox', '-c', 'sandbox_mode=workspace-write', '--', 'sh', '-c', ': > inside; : > ../outside'];
    const stderr = await new Promise<string>((resolve) => {
      execFile(context.binaryPath, args, { cwd: inside, env: context.env, timeout: context.timeoutMs }, (_e, _o, err) =>
        resolve(String(err ?? '')),
      );
    });
    if (!existsSync(join(inside, 'inside'))) {
      const said = stderr.trim().split('\n').pop() ?? '';
      return { state: 'no', reason: `Codex's sandbox did not run a command here${said ? `: ${said}` : '.'}` };
    }
    if (existsSync(join(probe, 'outside'))) {
      return { state: 'no', reason: "Codex's sandbox ran a command but did not stop its write outside the cwd." };
    }
    return { state: 'yes' };
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** One line for the human report, e.g. "bypass yes, ask yes, workspace no (...)". */
export function postureLine(postures: PostureReport): string {
  return (['bypass', 'ask', 'workspace'] as const)
    .map((posture) => {
      const check = postures[posture];
      return check.state === 'yes' ? `${posture} yes` : `${posture} ${check.state} (${check.reason ?? ''})`;
    })
    .join(', ');
}
