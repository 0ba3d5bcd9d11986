// Completes harness-clis/package-lock.json after `npm install` so that `npm ci` accepts it.
//
// Why: the registry this project installs from serves only some platform builds of a few packages
// (opencode-ai's and @teddyzhu/clipboard's darwin/win32/arm64/musl builds answer 404). `npm install`
// skips an optional dependency it cannot fetch and leaves it out of the lock, but `npm ci` (npm 11.19)
// then rebuilds the ideal tree, finds those edges unresolved and refuses: "Missing: opencode-darwin-arm64@
// from lock file". A lock entry carrying only version + os/cpu/libc lets `npm ci` see the edge as locked
// and skip the package on a non-matching platform without any fetch, exactly as it does for a platform
// package it could resolve.
//
// Usage (from harness-clis/): npm install && node scripts/lock-platform-placeholders.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

/** Node's lookup: the nearest node_modules/<name> walking up from the dependent's folder. */
function isResolvable(dependentKey, name) {
  let base = dependentKey;
  for (;;) {
    if (packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The platform a build package is for, from its name (opencode-linux-x64-musl, clipboard-win32-x64-msvc). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.includes('windows') || parts.includes('win32') ? 'win32' : parts.includes('darwin') ? 'darwin' : 'linux';
  const cpu = parts.includes('arm64') ? 'arm64' : 'x64';
  const libc = os === 'linux' ? (parts.includes('musl') ? ['musl'] : ['glibc']) : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

const added = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (isResolvable(key, name)) continue;
    packages[`node_modules/${name}`] = { version, optional: true, ...platformOf(name) };
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added placeholders: ${added.join(', ')}` : 'lock already complete');
