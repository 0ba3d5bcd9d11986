// Locates each pinned harness CLI inside harness-clis/node_modules (installed by `npm run setup:harnesses`).
//
// The packages are installed with scripts off (harness-clis/README.md), so the npm `bin` shims that a
// postinstall would have completed are not trusted: native CLIs are run straight from their platform package
// (what the shim would exec anyway), JS CLIs with an explicit node. Qwen Code (>= 22) and OpenClaw (>= 24.16)
// get the Node 24 that harness-clis ships; the others run on the Node that runs the tests.
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
  'pi',
  'openclaw',
] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];

export interface HarnessBinary {
  id: HarnessId;
  /** The npm package that was pinned in harness-clis/package.json. */
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

interface Located {
  packageName: string;
  command: string;
  args: string[];
  nodePath?: string;
  pathDirs?: string[];
}

type Locator = (modules: string, hostNode: string, bundledNode: string) => Located;

const cpu = arch() === 'arm64' ? 'arm64' : 'x64';

function hasAvx2(): boolean {
  try {
    return /(^|\s)avx2(\s|$)/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/** Codex's platform package names its binary in codex-package.json (0.169.0: bin/codex, rg in codex-path/). */
function locateCodex(modules: string): Located {
  const triple = cpu === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  const vendor = join(modules, `@openai/codex-linux-${cpu}/vendor`, triple);
  const manifestPath = join(vendor, 'codex-package.json');
  const manifest = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { entrypoint?: string; pathDir?: string })
    : {};
  return {
    packageName: '@openai/codex',
    command: join(vendor, manifest.entrypoint ?? 'bin/codex'),
    args: [],
    pathDirs: [join(vendor, manifest.pathDir ?? 'codex-path')],
  };
}

const locators: Record<HarnessId, Locator> = {
  codex: (modules) => locateCodex(modules),
  // bin/claude.exe is a stub until the postinstall hard-links the binary over it; the platform package has it.
  'claude-code': (modules) => ({
    packageName: '@anthropic-ai/claude-code',
    command: join(modules, `@anthropic-ai/claude-code-linux-${cpu}/claude`),
    args: [],
  }),
  gemini: (modules, hostNode) => ({
    packageName: '@google/gemini-cli',
    command: hostNode,
    args: [join(modules, '@google/gemini-cli/bundle/gemini.js')],
    nodePath: hostNode,
  }),
  // cli.js directly: cli-entry.js (the npm bin) only re-spawns it with --expose-gc.
  'qwen-code': (modules, _hostNode, bundledNode) => ({
    packageName: '@qwen-code/qwen-code',
    command: bundledNode,
    args: [join(modules, '@qwen-code/qwen-code/cli.js')],
    nodePath: bundledNode,
  }),
  copilot: (modules) => ({
    packageName: '@github/copilot',
    command: join(modules, `@github/copilot-linux-${cpu}/copilot`),
    args: [],
  }),
  // The same choice opencode-ai's postinstall makes: the baseline build on x64 CPUs without AVX2.
  opencode: (modules) => ({
    packageName: 'opencode-ai',
    command: join(modules, `opencode-linux-${cpu}${cpu === 'x64' && !hasAvx2() ? '-baseline' : ''}/bin/opencode`),
    args: [],
  }),
  'claude-agent-acp': (modules, hostNode) => ({
    packageName: '@zed-industries/claude-agent-acp',
    command: hostNode,
    args: [join(modules, '@zed-industries/claude-agent-acp/dist/index.js')],
    nodePath: hostNode,
  }),
  pi: (modules, hostNode) => ({
    packageName: '@mariozechner/pi-coding-agent',
    command: hostNode,
    args: [join(modules, '@mariozechner/pi-coding-agent/dist/cli.js')],
    nodePath: hostNode,
  }),
  openclaw: (modules, _hostNode, bundledNode) => ({
    packageName: 'openclaw',
    command: bundledNode,
    args: [join(modules, 'openclaw/openclaw.mjs')],
    nodePath: bundledNode,
  }),
};

/** The Node 24 from harness-clis (npm package node-linux-<arch>, bin/node). */
export function bundledNodePath(root = harnessClisDir()): string {
  return join(root, 'node_modules', `node-linux-${cpu}`, 'bin', 'node');
}

function readVersion(id: HarnessId, packageJsonPath: string): string {
  if (!existsSync(packageJsonPath)) throw new HarnessNotInstalledError(id, packageJsonPath);
  return (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
}

export function harnessBinary(id: HarnessId, root = harnessClisDir()): HarnessBinary {
  if (platform() !== 'linux') {
    throw new Error(
      `harness CLIs are located for Linux only (the real tier needs network namespaces); this is ${platform()}`,
    );
  }
  const modules = join(root, 'node_modules');
  const located = locators[id](modules, process.execPath, bundledNodePath(root));
  const version = readVersion(id, join(modules, located.packageName, 'package.json'));
  for (const path of [located.command, ...located.args]) {
    if (!existsSync(path)) throw new HarnessNotInstalledError(id, path);
  }
  return { id, version, pathDirs: [], ...located };
}

export function harnessBinaries(root = harnessClisDir()): HarnessBinary[] {
  return HARNESS_IDS.map((id) => harnessBinary(id, root));
}

/** The exact versions pinned in harness-clis/package.json, by package name. */
export function pinnedVersions(root = harnessClisDir()): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  return { ...manifest.dependencies, ...manifest.optionalDependencies };
}
