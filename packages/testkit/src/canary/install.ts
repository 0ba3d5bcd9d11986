// The newest published version of every harness CLI pinned in harness-clis/package.json (and of the Claude
// Agent SDK and the ACP SDK the adapters use), installed into a cache OUTSIDE the repository with the same
// node_modules layout as harness-clis/, so harnessBinary(id, cache) finds them. Install scripts stay off,
// as in harness-clis (.npmrc there). Needs the npm registry: runs outside the loopback-only namespace.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HARNESS_PINS } from '@reins/harnesses';
import type { PackageLine } from './report.js';

/** The adapters' SDKs: which harnesses load each one (each pin's `sdk`, in its harness folder). */
export const SDKS: Record<string, readonly string[]> = Object.fromEntries(
  [...new Set(HARNESS_PINS.flatMap((pin) => ('sdk' in pin ? [pin.sdk] : [])))].map((sdk) => [
    sdk,
    HARNESS_PINS.filter((pin) => 'sdk' in pin && pin.sdk === sdk).map((pin) => pin.id),
  ]),
);

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** The harness CLI packages harness-clis pins (previous-pin aliases and the Node binaries left out). */
export function harnessPackages(repo: string): Record<string, string> {
  const manifest = readJson<Manifest>(join(repo, 'harness-clis/package.json'));
  return Object.fromEntries(Object.entries(manifest.dependencies ?? {}).filter(([, spec]) => !spec.startsWith('npm:')));
}

/** The SDK versions the workspace uses (packages/harnesses/package.json). */
export function workspaceSdks(repo: string): Record<string, string> {
  const manifest = readJson<Manifest>(join(repo, 'packages/harnesses/package.json'));
  return Object.fromEntries(Object.keys(SDKS).map((name) => [name, manifest.dependencies?.[name] ?? '?']));
}

/** `npm view <name> version`: the version the `latest` tag names. */
export function newestVersion(name: string): string {
  return execFileSync('npm', ['view', name, 'version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface CacheInstall {
  dir: string;
  packages: PackageLine[];
}

/** Writes the cache's package.json (newest exact versions) and runs `npm install` there. */
export function installNewest(repo: string, cache: string, log: (line: string) => void): CacheInstall {
  const pinned = { ...harnessPackages(repo), ...workspaceSdks(repo) };
  const newest: Record<string, string> = {};
  for (const name of Object.keys(pinned)) {
    newest[name] = newestVersion(name);
    log(`newest ${name}: ${newest[name]} (pinned ${pinned[name]})`);
  }
  const clis = readJson<Manifest>(join(repo, 'harness-clis/package.json'));
  const workspace = readJson<Manifest>(join(repo, 'package.json'));
  mkdirSync(cache, { recursive: true });
  const manifest = {
    name: 'reins-canary-cache',
    private: true,
    description: 'Written by `npm run canary`: the newest published harness CLIs and SDKs. Safe to delete.',
    dependencies: newest,
    // The Node binaries Qwen Code and OpenClaw run on, as pinned in harness-clis.
    optionalDependencies: clis.optionalDependencies ?? {},
    // The Agent SDK's ~400 MB bundled CLI is never run (the adapter runs the discovered claude): the
    // workspace's empty stand-in, as in the root package.json.
    overrides: Object.fromEntries(
      Object.entries(workspace.overrides ?? {}).map(([name, spec]) => [
        name,
        spec.startsWith('file:./') ? `file:${join(repo, spec.slice('file:./'.length))}` : spec,
      ]),
    ),
  };
  writeFileSync(join(cache, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(cache, '.npmrc'), 'ignore-scripts=true\naudit=false\nfund=false\n');
  log(`npm install in ${cache}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: cache,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return { dir: cache, packages: packageLines(cache, pinned, newest) };
}

/** The package table; notes what a platform-binary package left out (Amp's stub-only releases). */
function packageLines(cache: string, pinned: Record<string, string>, newest: Record<string, string>): PackageLine[] {
  return Object.keys(pinned).map((name) => {
    const line: PackageLine = { name, pinned: pinned[name] as string, newest: newest[name] as string };
    const installed = join(cache, 'node_modules', name, 'package.json');
    if (!existsSync(installed)) return { ...line, note: 'not installed' };
    const optional = Object.keys(readJson<Manifest>(installed).optionalDependencies ?? {});
    const platform = optional.find((dep) => dep.endsWith(`-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`));
    if (platform && !existsSync(join(cache, 'node_modules', platform))) {
      return { ...line, note: `the registry serves no ${platform}@${newest[name]}: only a stub installs` };
    }
    return line;
  });
}

/** The cache as installed before (--skip-install): the same package table without a registry call. */
export function readCache(repo: string, cache: string): CacheInstall {
  const pinned = { ...harnessPackages(repo), ...workspaceSdks(repo) };
  const manifest = readJson<Manifest>(join(cache, 'package.json'));
  return { dir: cache, packages: packageLines(cache, pinned, manifest.dependencies ?? {}) };
}
