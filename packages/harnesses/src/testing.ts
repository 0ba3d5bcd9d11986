// A harness's test side, kept in its own folder (docs/architecture/adding-a-harness.md): where its pinned
// CLI sits in harness-clis/ and what it prints for --version (the pin, read synchronously), and what only
// the testkit loads (the hermetic home, the conformance recipe). Nothing here names a harness.
import { readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import type { HarnessId } from '@reins/core';

/** Where one install of a package sits in harness-clis/node_modules, and how its dependencies resolve. */
export interface PackagePlace {
  /** The package's own folder (node_modules/<name>, or node_modules/<alias> for a previous pin). */
  dir: string;
  /** A dependency's folder, resolved like Node: the package's own node_modules first, then the hoisted one. */
  dep(name: string): string;
  /** The Node that runs the tests. */
  hostNode: string;
  /** The Node 24 harness-clis ships, for CLIs that need a newer Node. */
  bundledNode: string;
}

/** How to spawn an installed CLI. */
export interface LocatedBinary {
  /** The executable: the native binary, or a Node for JS CLIs. */
  command: string;
  /** Arguments before the harness's own (the script path for JS CLIs). */
  args: string[];
  /** Node binary for JS CLIs; its folder goes first on the harness's PATH. */
  nodePath?: string;
  /** Extra folders the CLI expects on PATH. */
  pathDirs?: string[];
}

export type LocateBinary = (place: PackagePlace) => LocatedBinary;

/** One harness's pinned CLI in harness-clis/package.json (installed with scripts off: no npm bin shims). */
export interface HarnessPinSpec {
  id: HarnessId;
  /** The npm package pinned (its real name). */
  packageName: string;
  locate: LocateBinary;
  /**
   * The previous version, kept installed beside the current one: `{}` under the npm alias
   * `<packageName>-previous`, or another package (an agent that moved scope) with its own locator.
   */
  previous?: { packageName?: string; locate?: LocateBinary };
  /** What `--version` prints for a version (stdout or stderr); absent when the CLI has no version flag. */
  versionOutput?: (version: string) => string;
  /** For a CLI without a version flag: the name its ACP initialize answer gives, by pin. */
  initializeName?: { current: string; previous?: string };
}

/** The testkit's hermetic-home and conformance pieces a harness adds to its pin (HarnessManifest.testing). */
export interface HarnessTesting {
  pin: HarnessPinSpec;
}

/** The npm platform packages' CPU suffix. */
export const linuxCpu = arch() === 'arm64' ? 'arm64' : 'x64';

/** A JS CLI run by a Node binary: `node <package>/<script>`, on the tests' Node or harness-clis' Node 24. */
export function nodeScript(script: string, node: 'host' | 'bundled'): LocateBinary {
  return (place) => {
    const nodePath = node === 'host' ? place.hostNode : place.bundledNode;
    return { command: nodePath, args: [join(place.dir, script)], nodePath };
  };
}

/** Whether the CPU has AVX2 (some CLIs ship a baseline build for CPUs without it). */
export function hasAvx2(): boolean {
  try {
    return /(^|\s)avx2(\s|$)/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}
