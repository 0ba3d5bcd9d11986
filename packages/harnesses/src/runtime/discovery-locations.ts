// Where harness binaries live beyond PATH: the user's login-shell PATH (a GUI app or a daemon often
// inherits a shorter PATH than the terminal), the usual install folders of npm, Homebrew, bun, volta,
// nvm, and Windows npm shims. Pure helpers plus a memoized login-shell query; discovery.ts combines them.
import { posix, win32 } from 'node:path';
import { type ProbeOutput, runProbe } from './discovery-probe.js';

export type Platform = NodeJS.Platform;

export const pathApi = (platform: Platform) => (platform === 'win32' ? win32 : posix);

/** Executable names to try for `name` in one folder: PATHEXT-aware on Windows (claude -> claude.cmd, ...). */
export function executableNames(name: string, platform: Platform, pathext?: string): string[] {
  if (platform !== 'win32') return [name];
  const extensions = (pathext || '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((ext) => ext.trim().toLowerCase())
    .filter((ext) => ext.startsWith('.'));
  if (extensions.some((ext) => name.toLowerCase().endsWith(ext))) return [name];
  return extensions.map((ext) => `${name}${ext}`);
}

export function splitPath(value: string | undefined, platform: Platform): string[] {
  const delimiter = platform === 'win32' ? ';' : ':';
  return (value ?? '')
    .split(delimiter)
    .map((dir) => dir.trim().replace(/^"(.*)"$/, '$1'))
    .filter((dir) => dir !== '');
}

/** How to run a resolved binary: a JavaScript target (from a Windows npm shim) needs node in front. */
export function launchCommand(
  path: string,
  platform: Platform = process.platform,
  node = 'node',
): { command: string; args: string[] } {
  if (platform === 'win32' && /\.[cm]?js$/i.test(path)) return { command: node, args: [path] };
  return { command: path, args: [] };
}

export interface ShimTarget {
  /** The file the shim runs (absolute). */
  target: string;
  /** 'node' when the target is JavaScript (run it with node), 'direct' for an .exe. */
  runner: 'node' | 'direct';
}

/**
 * Reads an npm cmd-shim (.cmd) and returns what it really runs. Spawning a .cmd/.bat is refused by Node
 * since the CVE-2024-27980 fix (EINVAL without shell:true, and a shell would re-parse our arguments), so
 * Reins runs the target itself. Both cmd-shim layouts are understood:
 *   "%dp0%\node_modules\@openai\codex\bin\codex.js" %*     (cmd-shim >= 4, after `SET dp0=%~dp0`)
 *   "%~dp0\node_modules\...\cli.js" %*                     (older shims)
 * and an .exe target (`"%dp0%\node_modules\@anthropic-ai\claude-code\bin\claude.exe" %*`) is run directly.
 * Returns undefined for anything else (a hand-written batch file): Reins cannot run it safely.
 */
export function resolveWindowsShim(shimText: string, shimPath: string): ShimTarget | undefined {
  const dir = win32.dirname(shimPath);
  // The line that forwards the arguments (%*) names the target as the last quoted %dp0% path on it.
  const lines = shimText.split(/\r?\n/).filter((line) => line.includes('%*'));
  for (const line of lines.reverse()) {
    const quoted = [...line.matchAll(/"([^"]*)"/g)].map((match) => match[1] as string);
    const relative = quoted.filter((text) => /^%~?dp0%?/i.test(text)).at(-1);
    if (!relative) continue;
    const rest = relative.replace(/^%~?dp0%?[\\/]?/i, '');
    if (rest === '' || /^node(\.exe)?$/i.test(rest)) continue;
    const target = win32.normalize(win32.join(dir, rest));
    if (/\.exe$/i.test(target)) return { target, runner: 'direct' };
    if (/\.[cm]?js$/i.test(target)) return { target, runner: 'node' };
    return undefined;
  }
  return undefined;
}

export interface LocationContext {
  platform: Platform;
  home: string;
  env: Record<string, string | undefined>;
  /** The running node (its prefix is npm's default global prefix). */
  execPath: string;
  listDir(path: string): Promise<string[]>;
  readText(path: string): Promise<string | undefined>;
}

/** npm's global bin folder without spawning npm: $npm_config_prefix, ~/.npmrc prefix=, node's own prefix. */
export async function npmGlobalBin(context: LocationContext): Promise<string> {
  const path = pathApi(context.platform);
  let prefix = context.env.npm_config_prefix ?? context.env.NPM_CONFIG_PREFIX;
  if (!prefix) {
    const npmrc = await context.readText(path.join(context.home, '.npmrc'));
    const line = npmrc?.split(/\r?\n/).find((text) => /^\s*prefix\s*=/.test(text));
    prefix = line
      ?.replace(/^\s*prefix\s*=\s*/, '')
      .trim()
      .replace(/^~(?=$|[\\/])/, context.home);
  }
  // Windows npm puts global shims in the prefix itself; POSIX in <prefix>/bin.
  if (context.platform === 'win32') return prefix ?? path.dirname(context.execPath);
  return path.join(prefix ?? path.dirname(path.dirname(context.execPath)), 'bin');
}

/** nvm's node versions, newest first (a user's `nvm use` default is usually the newest). */
async function nvmBins(context: LocationContext): Promise<string[]> {
  const path = pathApi(context.platform);
  const root = path.join(context.env.NVM_DIR ?? path.join(context.home, '.nvm'), 'versions', 'node');
  const versions = (await context.listDir(root)).filter((name) => /^v?\d/.test(name));
  const numeric = (name: string) => name.replace(/^v/, '').split('.').map(Number);
  versions.sort((a, b) => {
    const [x, y] = [numeric(a), numeric(b)];
    for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
    return 0;
  });
  return versions.map((version) => path.join(root, version, 'bin'));
}

/** Folders where users' package managers put executables, in the order Reins searches them. */
export async function knownInstallDirs(context: LocationContext): Promise<string[]> {
  const path = pathApi(context.platform);
  const home = context.home;
  if (context.platform === 'win32') {
    const appData = context.env.APPDATA;
    return [
      await npmGlobalBin(context),
      ...(appData ? [path.join(appData, 'npm')] : []),
      path.join(home, '.bun', 'bin'),
      path.join(home, '.volta', 'bin'),
      path.join(home, '.local', 'bin'),
    ];
  }
  return [
    await npmGlobalBin(context),
    path.join(home, '.npm-global', 'bin'),
    path.join(home, '.local', 'bin'),
    '/usr/local/bin',
    '/opt/homebrew/bin',
    '/home/linuxbrew/.linuxbrew/bin',
    path.join(home, '.bun', 'bin'),
    path.join(home, '.volta', 'bin'),
    ...(await nvmBins(context)),
  ];
}

/** Runs `shell args` with a deadline (injectable so unit tests need no real shell). */
export type ShellRunner = (
  shell: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
) => Promise<ProbeOutput>;

export const defaultShellRunner: ShellRunner = (shell, args, env, timeoutMs) =>
  runProbe({ command: shell, args, env, timeoutMs, label: `${shell} -lc (PATH)` });

const START = '__REINS_PATH_START__';
const END = '__REINS_PATH_END__';

export type LoginShellPath = { ok: true; shell: string; path: string } | { ok: false; shell?: string; error: string };

/**
 * PATH as the user's login shell sets it. Only the variable is read; Reins then searches the folders itself,
 * so a shell function or alias named like the harness (common for wrappers) never counts as the binary.
 * Markers around the value skip whatever a login profile prints (motd, nvm notices).
 */
export async function readLoginShellPath(
  env: Record<string, string | undefined>,
  options: { platform: Platform; timeoutMs: number; runShell?: ShellRunner },
): Promise<LoginShellPath> {
  const shell = env.SHELL;
  if (options.platform === 'win32') return { ok: false, error: 'no login shell on Windows' };
  if (!shell) return { ok: false, error: 'SHELL is not set' };
  const script = `printf '%s%s%s' '${START}' "$PATH" '${END}'`;
  const run = options.runShell ?? defaultShellRunner;
  const output = await run(shell, ['-lc', script], env, options.timeoutMs);
  const start = output.stdout.lastIndexOf(START);
  const end = output.stdout.lastIndexOf(END);
  if (start >= 0 && end > start) return { ok: true, shell, path: output.stdout.slice(start + START.length, end) };
  const why = output.error ?? (output.stderr.trim().split('\n').at(-1) || `exited with code ${output.code}`);
  return { ok: false, shell, error: `${shell} -lc did not print PATH: ${why}` };
}

const loginShellCache = new WeakMap<ShellRunner, Map<string, Promise<LoginShellPath>>>();

/** readLoginShellPath, once per process for the same shell, HOME and PATH (doctor asks for every harness). */
export function cachedLoginShellPath(
  env: Record<string, string | undefined>,
  options: { platform: Platform; timeoutMs: number; runShell?: ShellRunner },
): Promise<LoginShellPath> {
  const runner = options.runShell ?? defaultShellRunner;
  let byKey = loginShellCache.get(runner);
  if (!byKey) {
    byKey = new Map();
    loginShellCache.set(runner, byKey);
  }
  const key = [env.SHELL, env.HOME, env.PATH, options.platform].join('\0');
  let pending = byKey.get(key);
  if (!pending) {
    pending = readLoginShellPath(env, { ...options, runShell: runner });
    byKey.set(key, pending);
  }
  return pending;
}
