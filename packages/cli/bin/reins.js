#!/usr/bin/env node
// Installed as `reins`. Runs the bundled CLI (dist/bundle, from `npm run build`) with V8's compile cache
// on; the unbundled dist/ where there is no bundle, or, in a source checkout, where dist/ is newer than
// the bundle (docs/architecture/bridges.md, "Start-up").
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

enableCompileCache();
import(entry()).catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('reins: the CLI is not built yet; run `npm run build` in the Reins checkout.\n');
    process.exit(2);
  }
  throw error;
});
