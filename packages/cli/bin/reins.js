#!/usr/bin/env node
// Installed as `reins`. Runs the bundled CLI (dist/bundle, from `npm run build`) with V8's compile cache
// on; the unbundled dist/ where there is no bundle, or, in a source checkout, where dist/ is newer than
// the bundle (docs/architecture/bridges.md, "Start-up"). A Codex bridge's app-server starts first (below).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

const VALUE_OPTIONS = new Set(['-H', '--harness', '--binary']);
/** Commands that start no app-server: nothing is spawned for them. */
const NO_HARNESS = new Set(['--version', '--help', '-h', '--daemon']);

/** The value of -H/--harness and --binary, or undefined when this start is not one to prestart. */
function codexBridgeBinary(argv, env) {
  if (argv[0] !== 'bridge' || !argv.includes('codex-app-server')) return undefined;
  let harness;
  let binary;
  for (let index = 1; index < argv.length; index++) {
    const arg = argv[index];
    if (NO_HARNESS.has(arg)) return undefined;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (!VALUE_OPTIONS.has(flag)) continue;
    const value = inline ?? argv[++index];
    if (flag === '--binary') binary = value;
    else harness = value;
  }
  if (harness !== 'codex') return undefined;
  if (binary) return binary;
  // REINS_CODEX_BIN is authoritative in discovery (unless discovery is off): the same binary.
  const disabled = env.REINS_DISABLE_HARNESS;
  const off = disabled !== undefined && disabled !== '' && disabled !== '0' && disabled.toLowerCase() !== 'false';
  return !off && env.REINS_CODEX_BIN?.startsWith('/') ? env.REINS_CODEX_BIN : undefined;
}

/**
 * The app-server's first line, Codex's `initialize` (INITIALIZE_LINE in packages/harnesses/src/codex/host.ts,
 * which this must equal: a child whose first line differs is not handed over, and starts again).
 */
const CODEX_INITIALIZE_LINE =
  '{"id":0,"method":"initialize","params":{"clientInfo":{"name":"reins","title":"Reins","version":"0.1.0"},"capabilities":{"experimentalApi":false,"requestAttestation":false}}}';

/**
 * `reins bridge codex-app-server -H codex` with the binary known (--binary, or REINS_CODEX_BIN): the
 * app-server starts here, before the bundle loads, so Codex's own start-up (~0.3 s) runs beside Reins'
 * (Node's start, the bundle's chunks: 0.6-0.9 s) instead of after it. The child is spawned exactly as
 * the harness would (packages/harnesses/src/runtime/child-process.ts, "prestarted": same arguments,
 * environment, cwd, pipes and process group) and handed over to the harness's first launch with those
 * settings; the bridge ends it if nothing claimed it, and so does this process's exit.
 */
function prestartHarness(argv = process.argv.slice(2), env = process.env) {
  const command = codexBridgeBinary(argv, env);
  if (!command) return;
  // What CodexRuntime.spawnHost runs (packages/harnesses/src/codex/connection.ts).
  const args = ['app-server', '--strict-config'];
  const cwd = process.cwd();
  const childEnv = { ...env };
  const child = spawn(command, args, { cwd, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  // Codex initializes while the bundle loads; the host reads the answer from the pipe.
  child.stdin.on('error', () => {});
  child.stdin.write(`${CODEX_INITIALIZE_LINE}\n`);
  const record = {
    command,
    args,
    cwd,
    env: childEnv,
    child,
    spawned: false,
    claimed: false,
    firstLine: CODEX_INITIALIZE_LINE,
  };
  // Its output waits in the pipes for the harness (a child that exits unread has it drained and dropped).
  for (const stream of [child.stdout, child.stderr]) stream?.on('readable', () => {});
  child.once('spawn', () => {
    record.spawned = true;
  });
  child.on('error', (error) => {
    if (!record.spawned) record.error ??= error;
  });
  globalThis[Symbol.for('reins.prestartedChild')] = record;
  process.on('exit', () => {
    if (record.claimed || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
}

/** Node >= 22.1 keeps compiled code between runs; a cache that cannot be written is only a slower start. */
function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function') return;
  const env = process.env;
  const cacheHome =
    env.XDG_CACHE_HOME ||
    (process.platform === 'win32' ? env.LOCALAPPDATA : undefined) ||
    join(homedir(), process.platform === 'darwin' ? 'Library/Caches' : '.cache');
  try {
    module.enableCompileCache(env.REINS_HOME ? join(env.REINS_HOME, 'cache', 'v8') : join(cacheHome, 'reins', 'v8'));
  } catch {
    // no cache: nothing else changes
  }
}

/** The bundle, unless a checkout rebuilt dist/ (tsc --build) after it (scripts/bundle.mjs, built-from.json). */
function entry() {
  const bundle = new URL('../dist/bundle/reins.mjs', import.meta.url);
  const forced = process.env.REINS_BUNDLE; // 1: the bundle without the check below, 0: dist/ (debugging)
  if (forced === '0' || !existsSync(bundle)) return '../dist/bin.js';
  if (forced === '1' || !existsSync(new URL('../src', import.meta.url))) return bundle.href;
  try {
    const builtAt = statSync(bundle).mtimeMs;
    const stamps = JSON.parse(readFileSync(new URL('../dist/bundle/built-from.json', import.meta.url), 'utf8'));
    const bundleDir = new URL('../dist/bundle/', import.meta.url);
    for (const stamp of stamps) if (statSync(new URL(stamp, bundleDir)).mtimeMs > builtAt) return '../dist/bin.js';
    return bundle.href;
  } catch {
    return '../dist/bin.js';
  }
}

/**
 * A bridge checks its events against core's zod schemas, a handful of parses per turn, and zod compiles
 * a parser for each object schema on its first parse (new Function): 40 ms of a bridge's 210 ms of CPU
 * for a cold Codex turn (median of 10, load 13-14). zod reads this setting as the schemas are built, so
 * it is set before they load, on the global every copy of zod shares (zod/v4/core, `jitless`). It holds
 * for the bridge's whole life, and costs its warm turns nothing measurable: an event's parse takes 2-5 µs
 * instead of ~1.3, for about ten parses a turn; the bridge's CPU per warm turn was the same with and
 * without it (Codex 7.10 vs 6.87 ms, ACP 7.24 vs 7.34, 150 turns each, both orders, load 4-8).
 */
function parseSchemasWithoutCompiling(argv = process.argv.slice(2)) {
  if (argv[0] !== 'bridge') return;
  globalThis.__zod_globalConfig ??= {};
  globalThis.__zod_globalConfig.jitless = true;
}

prestartHarness();
parseSchemasWithoutCompiling();
enableCompileCache();
import(entry()).catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('reins: the CLI is not built yet; run `npm run build` in the Reins checkout.\n');
    process.exit(2);
  }
  throw error;
});
