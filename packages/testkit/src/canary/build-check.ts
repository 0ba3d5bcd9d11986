// Do the adapters still build against the newest Codex wire types (and the newest Agent SDK and ACP SDK
// types)? A copy of packages/harnesses/src and packages/bridges/src outside the repository is type-checked
// twice: as it is (the baseline: the pinned wire, the workspace's SDKs) and with the newest generated wire
// dropped in and the SDKs mapped to the canary's cache. Errors only the second check has are the drift.
// The repository is never written to.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildCheck } from './report.js';

export interface BuildCheckOptions {
  repo: string;
  /** Scratch folder for the copy (outside the repository). */
  scratch: string;
  /** The newest Codex's generated wire (scripts/generate-codex-wire.mjs output). */
  newestWire: string;
  /** node_modules holding the newest SDKs (the canary's cache), for the second check. */
  newestModules?: string;
  /** SDK package names to take from `newestModules`. */
  sdks?: string[];
}

const WIRE = 'harnesses/src/codex/wire/generated';

function writeTsconfig(overlay: string, repo: string, sdkPaths: Record<string, string[]>): void {
  const config = {
    extends: join(repo, 'tsconfig.base.json'),
    compilerOptions: {
      noEmit: true,
      composite: false,
      declaration: false,
      declarationMap: false,
      incremental: false,
      lib: ['ES2022'],
      types: ['node'],
      paths: {
        '@reins/core': [join(repo, 'packages/core/src/index.ts')],
        '@reins/harnesses': [join(overlay, 'harnesses/src/index.ts')],
        ...sdkPaths,
      },
    },
    include: ['harnesses/src', 'bridges/src'],
    exclude: ['**/*.test.ts'],
  };
  writeFileSync(join(overlay, 'tsconfig.json'), `${JSON.stringify(config, null, 2)}\n`);
}

/** `tsc -p`, returning its error lines (file(line,col): error TS...: message). */
function typeCheck(overlay: string, repo: string): string[] {
  const tsc = join(repo, 'node_modules/typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(overlay, 'tsconfig.json'), '--pretty', 'false'], {
      cwd: overlay,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    return [];
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ''}`;
    const lines = output.split('\n').filter((line) => /error TS\d+/.test(line));
    if (lines.length === 0) throw error;
    return lines.map((line) => line.replace(`${overlay}/`, ''));
  }
}

export function checkBuild(options: BuildCheckOptions): BuildCheck {
  const overlay = join(options.scratch, 'build-check');
  rmSync(overlay, { recursive: true, force: true });
  mkdirSync(overlay, { recursive: true });
  for (const pkg of ['harnesses', 'bridges']) {
    cpSync(join(options.repo, 'packages', pkg, 'src'), join(overlay, pkg, 'src'), { recursive: true });
  }
  // Third-party packages (and @types/node) resolve from the workspace, as in the real build.
  symlinkSync(join(options.repo, 'node_modules'), join(overlay, 'node_modules'), 'dir');
  // ESM, as the packages are.
  writeFileSync(join(overlay, 'package.json'), '{ "private": true, "type": "module" }\n');

  writeTsconfig(overlay, options.repo, {});
  const pinned = typeCheck(overlay, options.repo);

  rmSync(join(overlay, WIRE), { recursive: true, force: true });
  cpSync(options.newestWire, join(overlay, WIRE), { recursive: true });
  const sdkPaths: Record<string, string[]> = {};
  for (const sdk of options.sdks ?? []) {
    const dir = options.newestModules ? join(options.newestModules, sdk) : undefined;
    if (!dir || !existsSync(dir)) continue;
    sdkPaths[sdk] = [dir];
    sdkPaths[`${sdk}/*`] = [join(dir, '*')];
  }
  writeTsconfig(overlay, options.repo, sdkPaths);
  const newest = typeCheck(overlay, options.repo);

  const before = new Set(pinned);
  return {
    pinnedWire: { ok: pinned.length === 0, errors: pinned.length },
    newestWire: { ok: newest.length === 0, errors: newest.length },
    newErrors: newest.filter((line) => !before.has(line)),
  };
}
