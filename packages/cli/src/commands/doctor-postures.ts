// `reins doctor`'s postures: which of bypass, ask and workspace a found harness can take on this machine
// (docs/architecture/contract.md, "Postures"). What the adapter implements comes from its capability
// matrix (approvals: ask, sandbox: workspace, 'reins-bubblewrap' where Reins confines the harness);
// whether the sandbox can run here is checked as the harness's manifest says (ownSandbox), and a workspace
// that can says what it holds.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNever, type CapabilityMatrix, type HarnessId, type Posture } from '@reins/core';
import { confinedArgv, findBwrap, harnessManifest, reinsHome } from '@reins/harnesses';

export interface PostureCheck {
  state: 'yes' | 'no' | 'unknown';
  /** Why not (or why unknown), and what to do about it. */
  reason?: string;
  /** workspace yes: whether writes outside the cwd are stopped, and whether the tools' network is cut. */
  holds?: { writesConfined: boolean; toolsNetworkOff: boolean };
}

/** The harness's own sandbox confines writes and cuts its tools' network (Codex, Claude Code). */
const OWN_SANDBOX: PostureCheck = { state: 'yes', holds: { writesConfined: true, toolsNetworkOff: true } };

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
  if (context.capabilities.sandbox.implemented.how === 'reins-bubblewrap') return probeReinsConfinement(context);
  const manifest = harnessManifest(context.id);
  const check = manifest?.ownSandbox;
  if (!manifest || !check) return { state: 'unknown', reason: `doctor has no check for ${context.id}'s sandbox.` };
  if (process.platform !== 'linux') return OWN_SANDBOX;
  switch (check.kind) {
    case 'tools-on-path': {
      const missing = check.missing(context.env.PATH);
      if (missing.length === 0) return OWN_SANDBOX;
      return {
        state: 'no',
        reason: `${manifest.displayName}'s sandbox needs ${missing.join(' and ')} on PATH (${check.install}).`,
      };
    }
    case 'write-probe':
      return probeOwnSandbox(context, manifest.displayName, check.args);
    default:
      return assertNever(check);
  }
}

/**
 * Runs the harness's own sandbox command (e.g. `codex sandbox`, workspace-write) on the write probe. The
 * probe folder is under REINS_HOME, since such a sandbox also lets commands write /tmp and $TMPDIR (a
 * write there proves nothing).
 */
async function probeOwnSandbox(context: PostureContext, name: string, args: readonly string[]): Promise<PostureCheck> {
  const home = reinsHome(context.env);
  const tmp = [context.env.TMPDIR, '/tmp'].filter((dir): dir is string => Boolean(dir));
  if (tmp.some((dir) => home === dir || home.startsWith(`${dir.replace(/\/$/, '')}/`))) {
    return { state: 'unknown', reason: `REINS_HOME (${home}) is under a temp folder ${name} lets commands write.` };
  }
  const argv = [...args, 'sh', '-c', PROBE_WRITES];
  return probeWrites(context, `${name}'s sandbox`, () => ({ command: context.binaryPath, args: argv }), OWN_SANDBOX);
}

/**
 * Reins' own confinement (bubblewrap, the harness's runtime/confinement.ts argv) on the write probe, with
 * only its cwd writable. The tools' network stays on under it (the harness must reach its model).
 */
async function probeReinsConfinement(context: PostureContext): Promise<PostureCheck> {
  if (process.platform !== 'linux') {
    return { state: 'no', reason: `Reins confines ${context.id} with bubblewrap, which needs Linux.` };
  }
  const bwrap = findBwrap(context.env.PATH);
  if (!bwrap) {
    return {
      state: 'no',
      reason: `Reins confines ${context.id} with bubblewrap, and no bwrap is on PATH (apt install bubblewrap).`,
    };
  }
  return probeWrites(
    context,
    'bubblewrap',
    (inside) => confinedArgv({ bwrap, writable: [inside] }, '/bin/sh', ['-c', PROBE_WRITES], inside),
    { state: 'yes', holds: { writesConfined: true, toolsNetworkOff: false } },
  );
}

/** Writes one file in the cwd and one beside it: under a working sandbox only the first lands. */
const PROBE_WRITES = ': > inside; : > ../outside';

/** Runs `command(cwd)` (PROBE_WRITES under `sandbox`) in a fresh folder under REINS_HOME and judges its writes. */
async function probeWrites(
  context: PostureContext,
  sandbox: string,
  command: (cwd: string) => { command: string; args: string[] },
  confined: PostureCheck,
): Promise<PostureCheck> {
  const home = reinsHome(context.env);
  await mkdir(home, { recursive: true });
  const probe = await mkdtemp(join(home, 'doctor-sandbox-'));
  try {
    const inside = join(probe, 'cwd');
    await mkdir(inside);
    const run = command(inside);
    const stderr = await new Promise<string>((resolve) => {
      execFile(run.command, run.args, { cwd: inside, env: context.env, timeout: context.timeoutMs }, (_e, _o, err) =>
        resolve(String(err ?? '')),
      );
    });
    if (!existsSync(join(inside, 'inside'))) {
      const said = stderr.trim().split('\n').pop() ?? '';
      return { state: 'no', reason: `${sandbox} did not run a command here${said ? `: ${said}` : '.'}` };
    }
    if (existsSync(join(probe, 'outside'))) {
      return { state: 'no', reason: `${sandbox} ran a command but did not stop its write outside the cwd.` };
    }
    return confined;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** One line for the human report, e.g. "bypass yes, ask yes, workspace no (...)". */
export function postureLine(postures: PostureReport): string {
  return (['bypass', 'ask', 'workspace'] as const)
    .map((posture) => {
      const check = postures[posture];
      if (check.state !== 'yes') return `${posture} ${check.state} (${check.reason ?? ''})`;
      if (!check.holds) return `${posture} yes`;
      const network = check.holds.toolsNetworkOff ? "tools' network off" : "tools' network not cut";
      return `${posture} yes (${check.holds.writesConfined ? 'writes confined' : 'writes not confined'}; ${network})`;
    })
    .join(', ');
}
