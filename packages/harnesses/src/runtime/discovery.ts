// Finding a harness binary and fingerprinting it (path, version, sha256). Order: the
// REINS_<ID>_BIN override, then PATH. (Login-shell PATH and known install locations come with
// the discovery issue; adapters only call locateBinary / fingerprintBinary.)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { type DiscoveredBinary, type DiscoverySource, type HarnessId, ReinsError } from '@reins/core';

export interface BinarySpec {
  id: HarnessId;
  /** Executable names to look for on PATH, in order. */
  names: string[];
  /** Arguments that print the version (default --version). */
  versionArgs?: string[];
  /** Pulls the version out of the probe's stdout (default: the first x.y.z). */
  parseVersion?: (stdout: string) => string | undefined;
}

export function overrideVariable(id: string): string {
  return `REINS_${id.toUpperCase().replace(/-/g, '_')}_BIN`;
}

export function defaultParseVersion(stdout: string): string | undefined {
  return /\d+\.\d+\.\d+(?:[-.+][0-9A-Za-z.-]+)?/.exec(stdout)?.[0];
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Runs `<binary> --version` with a deadline; undefined when it does not answer in time. */
export function probeVersion(path: string, spec: BinarySpec, env: NodeJS.ProcessEnv, timeoutMs = 10_000) {
  return new Promise<string | undefined>((resolve) => {
    execFile(
      path,
      spec.versionArgs ?? ['--version'],
      { env, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout) => {
        if (error && !stdout) return resolve(undefined);
        resolve((spec.parseVersion ?? defaultParseVersion)(String(stdout)));
      },
    );
  });
}

/** Fingerprints a known binary path (sha256 of the resolved file, version from the probe). */
export async function fingerprintBinary(
  path: string,
  spec: BinarySpec,
  source: DiscoverySource = 'explicit',
  env: NodeJS.ProcessEnv = process.env,
): Promise<DiscoveredBinary> {
  if (!(await isExecutable(path))) {
    throw new ReinsError('binary_not_found', `${path} is not an executable file.`, {
      harness: spec.id,
      operation: 'discover',
    });
  }
  const real = await realpath(path);
  const [sha256, version] = await Promise.all([sha256File(real), probeVersion(path, spec, env)]);
  return { path, sha256, source, ...(version ? { version } : {}) };
}

/** Finds the binary by override, then PATH; throws binary_not_found with what to do. */
export async function locateBinary(spec: BinarySpec, env: NodeJS.ProcessEnv = process.env): Promise<DiscoveredBinary> {
  const variable = overrideVariable(spec.id);
  const override = env[variable];
  if (override) {
    if (!isAbsolute(override)) {
      throw new ReinsError('invalid_input', `${variable} must be an absolute path, got "${override}".`, {
        harness: spec.id,
      });
    }
    return fingerprintBinary(override, spec, 'env', env);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of spec.names) {
      const candidate = join(dir, name);
      if (await isExecutable(candidate)) return fingerprintBinary(candidate, spec, 'path', env);
    }
  }
  throw new ReinsError(
    'binary_not_found',
    `${spec.id} is not installed or not on PATH (looked for ${spec.names.join(', ')}). ` +
      `Install it, or set ${variable} to its absolute path; \`reins doctor\` shows where Reins looks.`,
    { harness: spec.id, operation: 'discover', data: { names: spec.names, variable } },
  );
}
