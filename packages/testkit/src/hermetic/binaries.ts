// Locates each pinned harness CLI inside harness-clis/node_modules (installed by `npm run setup:harnesses`).
// Which CLIs are pinned, and where each one's binary sits in its package, come from the harnesses' own
// testing part (`testing/pin.ts` in each harness folder, docs/architecture/adding-a-harness.md).
//
// The packages are installed with scripts off (harness-clis/README.md), so the npm `bin` shims that a
// postinstall would have completed are not trusted: native CLIs are run straight from their platform package
// (what the shim would exec anyway), JS CLIs with an explicit node (the tests' Node, or the Node 24 that
// harness-clis ships for CLIs that need a newer one).
//
// Two pins: some harnesses also keep their previous version installed beside the current one, under the npm
// alias `<package>-previous` (harness-clis/package.json), so every capability is tested on two versions. npm
// nests the previous version's platform package under the alias (its version differs from the hoisted
// current one), so platform packages are looked up the way Node resolves them: the nearest node_modules
// walking up from the package that depends on them. An agent that moved to another npm scope keeps its old
// package under its own name (no alias), located by its own locator.
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  HARNESS_PINS,
  type HarnessPinSpec,
  type LocatedBinary,
  type PackagePlace,
  type PinnedHarnessId,
  type PreviousPinnedHarnessId,
} from '@reins/harnesses';

/** The harnesses with a pinned CLI, from their manifests' testing part (HARNESS_PINS). */
export const HARNESS_IDS: readonly PinnedHarnessId[] = HARNESS_PINS.map((pin) => pin.id);
export type HarnessId = PinnedHarnessId;

/** `current`: the pin in harness-clis/package.json; `previous`: the version before it (`<package>-previous`). */
export type HarnessPin = 'current' | 'previous';

/** The harnesses whose previous pin is installed too (the two-version tested range). */
export const PREVIOUS_PIN_IDS: readonly PreviousPinnedHarnessId[] = HARNESS_PINS.flatMap((pin) =>
  'previous' in pin ? [pin.id] : [],
);
export type PreviousPinId = PreviousPinnedHarnessId;

export function hasPreviousPin(id: string): id is PreviousPinId {
  return (PREVIOUS_PIN_IDS as readonly string[]).includes(id);
}

/** The npm alias the previous pin is installed under: `@openai/codex` -> `@openai/codex-previous`. */
export function previousAlias(packageName: string): string {
  return `${packageName}-previous`;
}

export interface HarnessBinary {
  id: HarnessId;
  /** Which harness-clis pin this is; absent for a binary from elsewhere (`reins conformance` on the user's own). */
  pin?: HarnessPin;
  /** The npm package that was pinned in harness-clis/package.json (its real name, never the alias). */
  packageName: string;
  /** Version of the installed package (package.json), which tests compare with what the CLI prints. */
  version: string;
  /** The executable to spawn: the native binary, or `nodePath` for JS CLIs. */
  command: string;
  /** Arguments that come before the harness's own (the script path for JS CLIs). */
  args: string[];
  /** Node binary for JS CLIs; its folder goes first on the harness's PATH. */
  nodePath?: string;
  /** Extra folders the CLI expects on PATH (Codex ships its own rg). */
  pathDirs: string[];
}

export class HarnessNotInstalledError extends Error {
  override readonly name = 'HarnessNotInstalledError';
  constructor(
    readonly id: HarnessId,
    readonly missingPath: string,
  ) {
    super(
      `Harness CLI '${id}' is not installed (missing ${missingPath}). Run \`npm run setup:harnesses\` ` +
        '(npm ci --prefix harness-clis) first.',
    );
  }
}

/** harness-clis/ at the repository root; REINS_HARNESS_CLIS points elsewhere (e.g. a shared install). */
export function harnessClisDir(): string {
  const override = process.env.REINS_HARNESS_CLIS;
  if (override) return resolve(override);
  // src/hermetic/ and dist/hermetic/ sit at the same depth under packages/testkit.
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../../harness-clis');
}

const cpu = arch() === 'arm64' ? 'arm64' : 'x64';

/** Each harness's pin spec (its folder's testing/pin.ts), by id. */
const locators = new Map<HarnessId, HarnessPinSpec>(HARNESS_PINS.map((pin) => [pin.id, pin]));

function locator(id: HarnessId): HarnessPinSpec {
  const pin = locators.get(id);
  if (!pin) throw new Error(`${id} has no pinned CLI; harness-clis pins ${HARNESS_IDS.join(', ')}.`);
  return pin;
}

/** The Node 24 from harness-clis (npm package node-linux-<arch>, bin/node). */
export function bundledNodePath(root = harnessClisDir()): string {
  return join(root, 'node_modules', `node-linux-${cpu}`, 'bin', 'node');
}

function readVersion(id: HarnessId, packageJsonPath: string): string {
  if (!existsSync(packageJsonPath)) throw new HarnessNotInstalledError(id, packageJsonPath);
  return (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
}

/** The npm package name a harness is pinned under (its real name); `previous`: the package of that pin. */
export function harnessPackageName(id: HarnessId, pin: HarnessPin = 'current'): string {
  const spec = locator(id);
  return pin === 'previous' ? (spec.previous?.packageName ?? spec.packageName) : spec.packageName;
}

/** The key of a pin in harness-clis/package.json: the package, the moved agent's old package, or the alias. */
function pinKey(id: HarnessId, pin: HarnessPin): string {
  const spec = locator(id);
  if (pin === 'current') return spec.packageName;
  return spec.previous?.packageName ?? previousAlias(spec.packageName);
}

/**
 * The pinned CLI of a harness: the current pin, or with `pin: 'previous'` the version before it
 * (only for PREVIOUS_PIN_IDS). `root` is harness-clis/ (or any folder with the same node_modules layout,
 * e.g. the canary's cache of the newest versions).
 */
export function harnessBinary(id: HarnessId, root = harnessClisDir(), pin: HarnessPin = 'current'): HarnessBinary {
  if (platform() !== 'linux') {
    throw new Error(
      `harness CLIs are located for Linux only (the real tier needs network namespaces); this is ${platform()}`,
    );
  }
  if (pin === 'previous' && !hasPreviousPin(id)) {
    throw new Error(`${id} has no previous pin; only ${PREVIOUS_PIN_IDS.join(', ')} keep one installed.`);
  }
  const spec = locator(id);
  const locate = (pin === 'previous' ? spec.previous?.locate : undefined) ?? spec.locate;
  const modules = join(root, 'node_modules');
  const dir = join(modules, pinKey(id, pin));
  const place: PackagePlace = {
    dir,
    dep: (name) => {
      const own = join(dir, 'node_modules', name);
      return existsSync(own) ? own : join(modules, name);
    },
    hostNode: process.execPath,
    bundledNode: bundledNodePath(root),
  };
  const version = readVersion(id, join(dir, 'package.json'));
  const located: LocatedBinary = locate(place);
  for (const path of [located.command, ...located.args]) {
    if (!existsSync(path)) throw new HarnessNotInstalledError(id, path);
  }
  return { id, pin, packageName: harnessPackageName(id, pin), version, pathDirs: [], ...located };
}

/** The previous pin of a harness that keeps one (PREVIOUS_PIN_IDS). */
export function previousHarnessBinary(id: PreviousPinId, root = harnessClisDir()): HarnessBinary {
  return harnessBinary(id, root, 'previous');
}

/** The current pin of every harness. */
export function harnessBinaries(root = harnessClisDir()): HarnessBinary[] {
  return HARNESS_IDS.map((id) => harnessBinary(id, root));
}

/** Every installed pin: the current pin of each harness, then the previous pins. */
export function allPinnedBinaries(root = harnessClisDir()): HarnessBinary[] {
  return [...harnessBinaries(root), ...PREVIOUS_PIN_IDS.map((id) => previousHarnessBinary(id, root))];
}

/**
 * The exact versions pinned in harness-clis/package.json, by package name; a previous pin is listed under
 * its alias (`@openai/codex-previous`) with the version from its `npm:<package>@<version>` spec.
 */
export function pinnedVersions(root = harnessClisDir()): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const specs = { ...manifest.dependencies, ...manifest.optionalDependencies };
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, /^npm:.+@([^@]+)$/.exec(spec)?.[1] ?? spec]),
  );
}

/** The version a pin names in harness-clis/package.json (what the installed binary must report). */
export function pinnedVersion(id: HarnessId, pin: HarnessPin = 'current', root = harnessClisDir()): string {
  const key = pinKey(id, pin);
  const version = pinnedVersions(root)[key];
  if (!version) throw new Error(`harness-clis/package.json pins no ${pin} version of ${key} (${id}).`);
  return version;
}
