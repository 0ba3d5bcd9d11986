// Reins' own confinement for posture `workspace` (docs/architecture/contract.md, "Postures"): a harness
// with no sandbox of its own runs under bubblewrap with the whole file system read-only except the
// session's cwd, the harness's state folders and the temp folder. Pure argv building and checks here;
// the launcher (child-process.ts) creates the folders and spawns.
import { isAbsolute, join, resolve } from 'node:path';
import { ReinsError } from '@reins/core';
import { findOnPath } from './find-on-path.js';

/** The folders a confined harness may write; everything else is read-only. Absolute paths. */
export interface Confinement {
  /** The bubblewrap executable to run the harness under. */
  bwrap: string;
  /** The session's cwd first; then the harness's state folders and the temp folder. */
  writable: string[];
}

/** Where a harness keeps its own state, from its launch environment (declared on its BinarySpec). */
export type StateFolders = (env: Record<string, string | undefined>) => string[];

export const BWRAP_INSTALL = 'apt install bubblewrap';

/** `bwrap` on `path` (a PATH value, the harness's own), else undefined. */
export function findBwrap(path: string | undefined): string | undefined {
  return findOnPath('bwrap', path);
}

/** The launch environment's home folder ('~' of the state folders). */
export function homeOf(env: Record<string, string | undefined>): string | undefined {
  return env.HOME && isAbsolute(env.HOME) ? env.HOME : undefined;
}

/** An env folder when it is set, else `fallback` under the home (e.g. XDG_CONFIG_HOME, else ~/.config). */
export function envOrHome(
  env: Record<string, string | undefined>,
  name: string,
  fallback: string,
  ...rest: string[]
): string[] {
  const set = env[name];
  if (set && isAbsolute(set)) return [join(set, ...rest)];
  const home = homeOf(env);
  return home ? [join(home, fallback, ...rest)] : [];
}

/** The temp folder a confined harness may write: `$TMPDIR` when set, else /tmp. */
export function tempFolder(env: Record<string, string | undefined>): string {
  return env.TMPDIR && isAbsolute(env.TMPDIR) ? env.TMPDIR : '/tmp';
}

/**
 * The confinement of a `workspace` session, or refuses it with `unsupported_capability` naming
 * `apt install bubblewrap` when bubblewrap is not here (the posture is never run unconfined).
 */
export function workspaceConfinement(options: {
  harness: string;
  displayName: string;
  cwd: string;
  env: Record<string, string | undefined>;
  stateFolders?: StateFolders;
}): Confinement {
  const bwrap = process.platform === 'linux' ? findBwrap(options.env.PATH) : undefined;
  if (!bwrap) {
    throw new ReinsError(
      'unsupported_capability',
      process.platform === 'linux'
        ? `Reins cannot hold ${options.displayName} to its workspace here: it confines the harness with bubblewrap, and no bwrap was found on PATH (${BWRAP_INSTALL}).`
        : `Reins cannot hold ${options.displayName} to its workspace on ${process.platform}: its confinement uses bubblewrap, which needs Linux.`,
      { harness: options.harness, operation: 'createSession', data: { field: 'posture', missing: ['bwrap'] } },
    );
  }
  const writable = [resolve(options.cwd), ...(options.stateFolders?.(options.env) ?? []), tempFolder(options.env)];
  return { bwrap, writable: [...new Set(writable)] };
}

/**
 * The bubblewrap command line that runs `command args` confined (pure): `/` read-only, each writable
 * folder bound read-write over it (parents first, so a folder inside another stays writable), a fresh
 * /dev and /proc, the cwd kept, and the harness ended when Reins' side of it dies. Network is untouched:
 * the harness's requests to its model go on (and so do its tools').
 */
export function confinedArgv(
  confinement: Confinement,
  command: string,
  args: readonly string[],
  cwd: string,
): { command: string; args: string[] } {
  const depth = (path: string) => path.split('/').filter(Boolean).length;
  const writable = [...new Set(confinement.writable)].sort((a, b) => depth(a) - depth(b));
  return {
    command: confinement.bwrap,
    args: [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      ...writable.flatMap((folder) => ['--bind', folder, folder]),
      '--chdir',
      cwd,
      '--die-with-parent',
      '--',
      command,
      ...args,
    ],
  };
}
