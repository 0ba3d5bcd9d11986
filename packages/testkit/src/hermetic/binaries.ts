// Locates each pinned harness CLI inside harness-clis/node_modules (installed by `npm run setup:harnesses`).
//
// The packages are installed with scripts off (harness-clis/README.md), so the npm `bin` shims that a
// postinstall would have completed are not trusted: native CLIs are run straight from their platform package
// (what the shim would exec anyway), JS CLIs with an explicit node. Qwen Code, claude-agent-acp and codex-acp
// (>= 22) and OpenClaw (>= 24.16) get the Node 24 that harness-clis ships; the others run on the Node that
// runs the tests.
//
// Two pins: Claude Code, Codex and the two moved ACP agents also keep their previous version installed beside the current one, under
// the npm alias `<package>-previous` (harness-clis/package.json), so every capability is tested on two
// versions. npm nests the previous version's platform package under the alias (its version differs from the
// hoisted current one), so platform packages are looked up the way Node resolves them: the nearest
// node_modules walking up from the package that depends on them. claude-agent-acp and codex-acp moved to
// another npm scope: their previous pin is the old package under its own name (no alias), located by its
// own locator.
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HARNESS_IDS = [
  'codex',
  'claude-code',
  'gemini',
  'qwen-code',
  'copilot',
  'opencode',
  'claude-agent-acp',
  'codex-acp',
  'pi',
  'openclaw',
] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];

/** `current`: the pin in harness-clis/package.json; `previous`: the version before it (`<package>-previous`). */
export type HarnessPin = 'current' | 'previous';

/** The harnesses whose previous pin is installed too (the two-version tested range). */
export const PREVIOUS_PIN_IDS = [
  'codex',
  'claude-code',
  'claude-agent-acp',
  'codex-acp',
] as const satisfies readonly HarnessId[];
export type PreviousPinId = (typeof PREVIOUS_PIN_IDS)[number];

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

/** Where one install of a package sits, and how its dependencies resolve from there. */
interface PackagePlace {
  /** The package's own folder (node_modules/<name>, or node_modules/<alias> for a previous pin). */
  dir: string;
  /** A dependency's folder, resolved like Node: the package's own node_modules first, then the hoisted one. */
  dep(name: string): string;
  hostNode: string;
  bundledNode: string;
}

interface Located {
  command: string;
  args: string[];
  nodePath?: string;
  pathDirs?: string[];
}

interface Locator {
  packageName: string;
  locate(place: PackagePlace): Located;
  /** A previous pin that is another package (the agent moved scope); absent: `<packageName>-previous`. */
  previous?: { packageName: string; locate(place: PackagePlace): Located };
}

const cpu = arch() === 'arm64' ? 'arm64' : 'x64';

function hasAvx2(): boolean {
  try {
    return /(^|\s)avx2(\s|$)/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/** Codex's platform package names its binary in codex-package.json (0.169.0, 0.171.0: bin/codex, rg in codex-path/). */
function locateCodex(place: PackagePlace): Located {
  const triple = cpu === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  const vendor = join(place.dep(`@openai/codex-linux-${cpu}`), 'vendor', triple);
  const manifestPath = join(vendor, 'codex-package.json');
  const manifest = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { entrypoint?: string; pathDir?: string })
    : {};
  return {
    command: join(vendor, manifest.entrypoint ?? 'bin/codex'),
    args: [],
    pathDirs: [join(vendor, manifest.pathDir ?? 'codex-path')],
  };
}

/** A JS CLI run by a Node binary: `node <package>/<script>`. */
const nodeScript = (script: string, node: 'host' | 'bundled') => (place: PackagePlace) => {
  const nodePath = node === 'host' ? place.hostNode : place.bundledNode;
  return { command: nodePath, args: [join(place.dir, script)], nodePath };
};

const locators: Record<HarnessId, Locator> = {
  codex: { packageName: '@openai/codex', locate: locateCodex },
  // bin/claude.exe is a stub until the postinstall hard-links the binary over it; the platform package has it.
  'claude-code': {
    packageName: '@anthropic-ai/claude-code',
    locate: (place) => ({ command: join(place.dep(`@anthropic-ai/claude-code-linux-${cpu}`), 'claude'), args: [] }),
  },
  gemini: { packageName: '@google/gemini-cli', locate: nodeScript('bundle/gemini.js', 'host') },
  // cli.js directly: cli-entry.js (the npm bin) only re-spawns it with --expose-gc.
  'qwen-code': { packageName: '@qwen-code/qwen-code', locate: nodeScript('cli.js', 'bundled') },
  copilot: {
    packageName: '@github/copilot',
    locate: (place) => ({ command: join(place.dep(`@github/copilot-linux-${cpu}`), 'copilot'), args: [] }),
  },
  // The same choice opencode-ai's postinstall makes: the baseline build on x64 CPUs without AVX2.
  opencode: {
    packageName: 'opencode-ai',
    locate: (place) => ({
      command: join(
        place.dep(`opencode-linux-${cpu}${cpu === 'x64' && !hasAvx2() ? '-baseline' : ''}`),
        'bin/opencode',
      ),
      args: [],
    }),
  },
  // 0.101.0 declares Node >= 22: the bundled Node 24. The previous pin, 0.23.1, runs on the test runner's Node.
  'claude-agent-acp': {
    packageName: '@agentclientprotocol/claude-agent-acp',
    locate: nodeScript('dist/index.js', 'bundled'),
    previous: { packageName: '@zed-industries/claude-agent-acp', locate: nodeScript('dist/index.js', 'host') },
  },
  // 2.x is a TypeScript adapter on `codex app-server` (its own Codex as a dependency); the previous pin,
  // Zed's Rust 0.16.0, whose bin/codex-acp.js only execs the platform package's native binary.
  'codex-acp': {
    packageName: '@agentclientprotocol/codex-acp',
    locate: nodeScript('dist/index.js', 'bundled'),
    previous: {
      packageName: '@zed-industries/codex-acp',
      locate: (place) => ({
        command: join(place.dep(`@zed-industries/codex-acp-linux-${cpu}`), 'bin/codex-acp'),
        args: [],
      }),
    },
  },
  pi: { packageName: '@mariozechner/pi-coding-agent', locate: nodeScript('dist/cli.js', 'host') },
  openclaw: { packageName: 'openclaw', locate: nodeScript('openclaw.mjs', 'bundled') },
};

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
  const locator = locators[id];
  return pin === 'previous' ? (locator.previous?.packageName ?? locator.packageName) : locator.packageName;
}

/** The key of a pin in harness-clis/package.json: the package, the moved agent's old package, or the alias. */
function pinKey(id: HarnessId, pin: HarnessPin): string {
  const locator = locators[id];
  if (pin === 'current') return locator.packageName;
  return locator.previous?.packageName ?? previousAlias(locator.packageName);
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
  const locator = pin === 'previous' && locators[id].previous ? { ...locators[id].previous } : locators[id];
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
  const located = locator.locate(place);
  for (const path of [located.command, ...located.args]) {
    if (!existsSync(path)) throw new HarnessNotInstalledError(id, path);
  }
  return { id, pin, packageName: locator.packageName, version, pathDirs: [], ...located };
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
