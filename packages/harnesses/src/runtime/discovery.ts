// Finding a harness binary and fingerprinting it (path, version, sha256, where it was found).
//
// Order (first candidate whose `--version` probe answers wins):
//   1. REINS_<ID>_BIN (authoritative: when set, nothing else is tried, so an override never silently
//      falls back to another binary);
//   2. the process PATH;
//   3. the user's login-shell PATH (`$SHELL -lc`, deadline; only PATH is read, so shell functions and
//      aliases named like the harness are ignored) and the known install folders (discovery-locations.ts);
//   4. copies bundled in other apps (a BinarySpec's bundledPaths), after every user-installed candidate.
// Candidates of one stage are probed in parallel. If none answers, the first one is reported with its
// probe error (health: unhealthy, whichever of discoverBinary, locateBinary or fingerprintBinary handed the
// binary out: versionProbeFailure). REINS_DISABLE_HARNESS=1 turns discovery off (hermetic tests).
//
// Adapters call `discoverBinary(spec, { env, explicitPath })` from `Harness.discover()` and hand the result
// to `harnessHealth` (discovery-health.ts); `locateBinary` is the throwing form for session start.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { type DiscoveredBinary, type Discovery, type DiscoverySource, type HarnessId, ReinsError } from '@reins/core';
import { BinaryHashes, type FileIdentity, fileIdentity, fileIdentityKey } from './binary-hashes.js';
import type { StateFolders } from './confinement.js';
import {
  cachedLoginShellPath,
  executableNames,
  knownInstallDirs,
  type LocationContext,
  launchCommand,
  type Platform,
  pathApi,
  resolveWindowsShim,
  type ShellRunner,
  splitPath,
} from './discovery-locations.js';
import { describeProbeFailure, runProbe } from './discovery-probe.js';
import { type ProbeAnswer, rememberedVersionProbe } from './discovery-versions.js';

export interface BinarySpec {
  id: HarnessId;
  /** Executable names to look for on PATH, in order. */
  names: string[];
  /** Arguments that print the version (default --version). */
  versionArgs?: string[];
  /** Pulls the version out of the probe's stdout (default: the first x.y.z). */
  parseVersion?: (stdout: string) => string | undefined;
  /** Extra absolute paths to try with the known install folders (after the login-shell PATH). */
  knownPaths?: string[];
  /** The harness's own install locations that are full paths (they depend on HOME and the platform). */
  installPaths?: (context: InstallContext) => string[];
  /** Copies bundled inside other apps: tried only when no user-installed binary answers. */
  bundledPaths?: (context: InstallContext) => string[];
  /**
   * Reads the version some other way, for a binary without a version flag (codex-acp 0.16.0 refuses
   * --version; its ACP initialize answer names it). Cached like the --version probe.
   */
  versionProbe?: VersionProber;
  /**
   * The folders the harness writes its own state in (config, sessions, logs, caches), from its launch
   * environment: writable under Reins' confinement in posture `workspace` (runtime/confinement.ts).
   */
  stateFolders?: StateFolders;
}

/** What a harness's own install paths depend on. */
export interface InstallContext {
  platform: NodeJS.Platform;
  home: string;
}

export function overrideVariable(id: string): string {
  return `REINS_${id.toUpperCase().replace(/-/g, '_')}_BIN`;
}

export const DISABLE_VARIABLE = 'REINS_DISABLE_HARNESS';

export function discoveryDisabled(env: Record<string, string | undefined>): boolean {
  const value = env[DISABLE_VARIABLE];
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

export function defaultParseVersion(stdout: string): string | undefined {
  return /\d+\.\d+\.\d+(?:[-.+][0-9A-Za-z.-]+)?/.exec(stdout)?.[0];
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
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

// Claude Code and Codex are 300-400 MB binaries: hash each once per process, and once per machine while
// the file is unchanged (binary-hashes.ts remembers it across processes).
const hashCache = new Map<string, Promise<string>>();
async function cachedSha256(path: string): Promise<string> {
  const file = await fileIdentity(path);
  const key = fileIdentityKey(file);
  let pending = hashCache.get(key);
  if (!pending) {
    pending = rememberedSha256(file);
    hashCache.set(key, pending);
    pending.catch(() => hashCache.delete(key));
  }
  return pending;
}

async function rememberedSha256(file: FileIdentity): Promise<string> {
  const hashes = BinaryHashes.forEnv();
  const remembered = await hashes.get(file);
  if (remembered) return remembered;
  const sha256 = await sha256File(file.realPath);
  await hashes.set(file, sha256);
  return sha256;
}

export type VersionProbe = ProbeAnswer;

export type VersionProber = (
  path: string,
  spec: BinarySpec,
  env: Record<string, string | undefined>,
  timeoutMs: number,
) => Promise<VersionProbe>;

/**
 * Runs `<binary> --version` (or spec.versionArgs, or spec.versionProbe) with a deadline and reports
 * whether it answered; once per unchanged file across processes (discovery-versions.ts).
 */
export const runVersionProbe: VersionProber = (path, spec, env, timeoutMs) =>
  rememberedVersionProbe(path, [spec.id, ...(spec.versionProbe ? [] : (spec.versionArgs ?? ['--version']))], env, () =>
    (spec.versionProbe ?? probeOnce)(path, spec, env, timeoutMs),
  );

const probeOnce: VersionProber = async (path, spec, env, timeoutMs) => {
  const launch = launchCommand(path);
  const args = [...launch.args, ...(spec.versionArgs ?? ['--version'])];
  const label = `${path} ${(spec.versionArgs ?? ['--version']).join(' ')}`;
  const output = await runProbe({ command: launch.command, args, env, timeoutMs, label, harness: spec.id });
  const version = (spec.parseVersion ?? defaultParseVersion)(output.stdout);
  if (output.started && !output.timedOut && output.code === 0)
    return { answered: true, ...(version ? { version } : {}) };
  return { answered: false, error: describeProbeFailure(output, label) };
};

/** Runs `<binary> --version` with a deadline; undefined when it does not answer in time. */
export async function probeVersion(path: string, spec: BinarySpec, env: NodeJS.ProcessEnv, timeoutMs = 10_000) {
  const probe = await runVersionProbe(path, spec, env, timeoutMs);
  return probe.answered ? probe.version : undefined;
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
  const [sha256, probe] = await Promise.all([cachedSha256(path), runVersionProbe(path, spec, env, 10_000)]);
  const binary: DiscoveredBinary = { path, sha256, source, ...(probe.version ? { version: probe.version } : {}) };
  if (!probe.answered) recordProbeFailure(binary, spec, probe.error);
  return binary;
}

/** Why a binary discovery handed out did not answer its version probe, and what to run to see it. */
export interface ProbeFailure {
  message: string;
  /** The probe's command line, when it is one a user can run by hand. */
  command?: string;
}

// A binary whose version probe failed is still handed out (a session may yet start it), and remembered here
// so that every harness's health() reports it unhealthy with the probe's message (discovery-health.ts).
const probeFailures = new WeakMap<DiscoveredBinary, ProbeFailure>();

function recordProbeFailure(binary: DiscoveredBinary, spec: BinarySpec, error: string | undefined): void {
  probeFailures.set(binary, {
    message: error ?? 'the version probe did not answer',
    ...(spec.versionProbe ? {} : { command: `${binary.path} ${(spec.versionArgs ?? ['--version']).join(' ')}` }),
  });
}

/** Set when `binary` (from discoverBinary, locateBinary or fingerprintBinary) did not answer its version probe. */
export function versionProbeFailure(binary: DiscoveredBinary): ProbeFailure | undefined {
  return probeFailures.get(binary);
}

/** A file discovery looked at, and what its probe said. */
export interface CandidateReport {
  path: string;
  source: DiscoverySource;
  /** The Windows .cmd shim it was resolved from. */
  shim?: string;
  answered?: boolean;
  version?: string;
  error?: string;
}

/** A core Discovery (assignable to it) with the candidates behind it, for `reins doctor` and health. */
export type DiscoveryResult = Discovery & {
  candidates: CandidateReport[];
  /** Set when the chosen binary's probe failed or hung: no candidate answered. Health is unhealthy. */
  probeError?: string;
};

/** The filesystem as discovery sees it (injectable for unit tests, and for Windows on a POSIX host). */
export interface DiscoveryFs {
  isExecutable(path: string): Promise<boolean>;
  realpath(path: string): Promise<string>;
  readText(path: string): Promise<string | undefined>;
  listDir(path: string): Promise<string[]>;
  sha256(path: string): Promise<string>;
}

export const nodeDiscoveryFs: DiscoveryFs = {
  isExecutable,
  realpath: (path) => realpath(path).catch(() => path),
  readText: (path) => readFile(path, 'utf8').catch(() => undefined),
  listDir: (path) => readdir(path).catch(() => []),
  sha256: cachedSha256,
};

export interface DiscoverOptions {
  /** The user's environment (default process.env). */
  env?: Record<string, string | undefined>;
  /** Skip the search and fingerprint this binary (HarnessOptions.binaryPath). Source 'explicit'. */
  explicitPath?: string;
  platform?: Platform;
  home?: string;
  /** The node whose prefix is npm's default global prefix (default process.execPath). */
  execPath?: string;
  /** Deadline of each `--version` probe (default 10 s). */
  probeTimeoutMs?: number;
  /** Deadline of the login shell (default 4 s). */
  loginShellTimeoutMs?: number;
  fs?: Partial<DiscoveryFs>;
  runShell?: ShellRunner;
  probe?: VersionProber;
}

interface Candidate {
  path: string;
  source: DiscoverySource;
  shim?: string;
}

export async function discoverBinary(spec: BinarySpec, options: DiscoverOptions = {}): Promise<DiscoveryResult> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const fs: DiscoveryFs = { ...nodeDiscoveryFs, ...options.fs };
  const probe = options.probe ?? runVersionProbe;
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const path = pathApi(platform);
  const variable = overrideVariable(spec.id);

  if (options.explicitPath) {
    return settle(spec, [[{ path: options.explicitPath, source: 'explicit' }]], [], { env, fs, probe, probeTimeoutMs });
  }
  if (discoveryDisabled(env)) {
    return {
      found: false,
      searched: [],
      hint: `Harness discovery is turned off (${DISABLE_VARIABLE}=${env[DISABLE_VARIABLE]}); unset it to look for ${spec.id}.`,
      candidates: [],
    };
  }
  const override = env[variable];
  if (override) {
    if (!path.isAbsolute(override)) {
      throw new ReinsError('invalid_input', `${variable} must be an absolute path, got "${override}".`, {
        harness: spec.id,
        operation: 'discover',
      });
    }
    return settle(spec, [[{ path: override, source: 'env' }]], [`${variable}: ${override}`], {
      env,
      fs,
      probe,
      probeTimeoutMs,
    });
  }

  const searched: string[] = [];
  const seen = new Set<string>();
  const searchedDirs = new Set<string>();
  /** Executables named like the harness in these folders, resolving Windows shims. */
  const inDirs = async (dirs: string[], source: DiscoverySource, label: string): Promise<Candidate[]> => {
    const found: Candidate[] = [];
    for (const dir of dirs) {
      // A folder already searched at an earlier step (login-shell PATH repeats most of PATH) is skipped.
      if (searchedDirs.has(dir)) continue;
      searchedDirs.add(dir);
      searched.push(`${label}: ${dir}`);
      for (const name of spec.names) {
        for (const file of executableNames(name, platform, env.PATHEXT)) {
          const candidate = await asCandidate(path.join(dir, file), source);
          if (candidate) found.push(candidate);
        }
      }
    }
    return found;
  };
  const asCandidate = async (file: string, source: DiscoverySource): Promise<Candidate | undefined> => {
    if (!(await fs.isExecutable(file))) return undefined;
    let candidate: Candidate = { path: file, source };
    if (platform === 'win32' && /\.(cmd|bat)$/i.test(file)) {
      const shim = resolveWindowsShim((await fs.readText(file)) ?? '', file);
      if (!shim) return undefined;
      candidate = { path: shim.target, source, shim: file };
    }
    const real = await fs.realpath(candidate.path);
    if (seen.has(real)) return undefined;
    seen.add(real);
    return candidate;
  };
  const atPaths = async (files: string[], source: DiscoverySource, label: string): Promise<Candidate[]> => {
    const found: Candidate[] = [];
    for (const file of files) {
      searched.push(`${label}: ${file}`);
      const candidate = await asCandidate(file, source);
      if (candidate) found.push(candidate);
    }
    return found;
  };

  const home = options.home ?? env.HOME ?? env.USERPROFILE ?? homedir();
  const context: LocationContext = {
    platform,
    home,
    env,
    execPath: options.execPath ?? process.execPath,
    listDir: fs.listDir,
    readText: fs.readText,
  };
  const stages: Array<() => Promise<Candidate[]>> = [
    () => inDirs(splitPath(env.PATH ?? env.Path, platform), 'path', 'PATH'),
    async () => {
      const login = await cachedLoginShellPath(env, {
        platform,
        timeoutMs: options.loginShellTimeoutMs ?? 4000,
        ...(options.runShell ? { runShell: options.runShell } : {}),
      });
      if (!login.ok) searched.push(`login shell PATH: not read (${login.error})`);
      const fromShell = login.ok
        ? await inDirs(splitPath(login.path, platform), 'login_shell', `login shell PATH (${login.shell})`)
        : [];
      const known = await inDirs(await knownInstallDirs(context), 'known_location', 'known location');
      const paths = await atPaths(
        [...(spec.installPaths?.(context) ?? []), ...(spec.knownPaths ?? [])],
        'known_location',
        'known location',
      );
      return [...fromShell, ...known, ...paths];
    },
    () => atPaths(spec.bundledPaths?.(context) ?? [], 'known_location', 'bundled copy'),
  ];
  return settle(spec, stages, searched, { env, fs, probe, probeTimeoutMs });
}

/** Probes stage after stage; the first candidate (in order) that answers wins. */
async function settle(
  spec: BinarySpec,
  stages: Array<Candidate[] | (() => Promise<Candidate[]>)>,
  searched: string[],
  tools: { env: Record<string, string | undefined>; fs: DiscoveryFs; probe: VersionProber; probeTimeoutMs: number },
): Promise<DiscoveryResult> {
  const reports: CandidateReport[] = [];
  const missing = new Set<CandidateReport>();
  for (const stage of stages) {
    const candidates = typeof stage === 'function' ? await stage() : stage;
    const probed = await Promise.all(
      candidates.map(async (candidate): Promise<CandidateReport> => {
        if (!(await tools.fs.isExecutable(candidate.path))) {
          const report = { ...candidate, answered: false, error: `${candidate.path} is not an executable file` };
          missing.add(report);
          return report;
        }
        // Hash while the probe runs (Claude Code is ~245 MB); the cache hands the digest to toBinary.
        tools.fs.sha256(candidate.path).catch(() => undefined);
        const result = await tools.probe(candidate.path, spec, tools.env, tools.probeTimeoutMs);
        return { ...candidate, ...result };
      }),
    );
    reports.push(...probed);
    const winner = probed.find((report) => report.answered);
    if (winner) return { found: true, binary: await toBinary(winner, tools.fs), candidates: reports };
  }
  const first = reports[0];
  if (first && !missing.has(first)) {
    const binary = await toBinary(first, tools.fs);
    recordProbeFailure(binary, spec, first.error);
    return {
      found: true,
      binary,
      candidates: reports,
      probeError: first.error ?? 'the version probe did not answer',
    };
  }
  const variable = overrideVariable(spec.id);
  const hint = !first
    ? `${spec.id} is not installed or not found (looked for ${spec.names.join(', ')} on PATH, the login-shell PATH ` +
      `and the usual install folders). Install it, or set ${variable} to its absolute path.`
    : first.source === 'env'
      ? `${first.path} (from ${variable}) is not an executable file. Fix or unset ${variable}.`
      : `${first.path} is not an executable file.`;
  return { found: false, searched, hint, candidates: reports };
}

async function toBinary(report: CandidateReport, fs: DiscoveryFs): Promise<DiscoveredBinary> {
  const sha256 = await fs.sha256(report.path);
  return { path: report.path, sha256, source: report.source, ...(report.version ? { version: report.version } : {}) };
}

/** Finds the binary (the whole discovery order); throws binary_not_found with what to do. */
export async function locateBinary(
  spec: BinarySpec,
  env: NodeJS.ProcessEnv = process.env,
  options: Omit<DiscoverOptions, 'env'> = {},
): Promise<DiscoveredBinary> {
  const result = await discoverBinary(spec, { ...options, env });
  if (result.found) return result.binary;
  throw new ReinsError('binary_not_found', `${result.hint} \`reins doctor\` shows where Reins looks.`, {
    harness: spec.id,
    operation: 'discover',
    data: { names: spec.names, variable: overrideVariable(spec.id) },
  });
}
