// `npm run build` (after tsc): bundles the compiled CLI (dist/bin.js and everything it imports) into
// dist/bundle/, so `reins` starts by reading a few files instead of several hundred modules
// (docs/architecture/bridges.md, "Start-up").
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const cli = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(cli, 'dist', 'bundle');
const { version } = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8'));

/**
 * Left to Node at run time, from node_modules:
 * - packages that find files beside their own modules (the Agent SDK its Claude Code, the daemon its
 *   package.json and the console's assets, the testkit its hermetic launcher and fixtures), which a
 *   bundle would move;
 * - native addons (better-sqlite3; ws's optional bufferutil and utf-8-validate, required in a try);
 * - the daemon (with its store, NATS client and console), which no bridge or turn needs: only the
 *   commands that use it import it, on demand.
 */
const EXTERNAL = [
  /^@anthropic-ai\/claude-agent-sdk(\/|$)/,
  /^@reins\/(daemon|testkit|console)(\/|$)/,
  /^better-sqlite3(\/|$)/,
  /^(bufferutil|utf-8-validate)$/,
];

/** The CLI's version module reads ../package.json beside itself: in the bundle it is a constant. */
const versionConstant = {
  name: 'reins-version',
  load(id) {
    if (id === join(cli, 'dist', 'version.js')) return `export const REINS_VERSION = ${JSON.stringify(version)};`;
    return null;
  },
};

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { reins: join(cli, 'dist', 'bin.js') },
  platform: 'node',
  external: EXTERNAL,
  plugins: [versionConstant],
  logLevel: 'warn',
});
// Code splitting stays on: each command, harness adapter and bridge protocol is imported on demand
// and lands in a chunk of its own, loaded only when used (one file would import every external first).
const { output } = await bundle.write({
  dir: out,
  format: 'esm',
  entryFileNames: '[name].mjs',
  chunkFileNames: '[name]-[hash].mjs',
});
await bundle.close();

// What the bundle was built from: tsc --build rewrites a package's tsconfig.tsbuildinfo whenever it
// emits, so in a source checkout bin/reins.js runs dist/ instead when one of these is newer than the
// bundle (a `tsc --build` without `npm run build`), at the cost of a few stats instead of one per module.
const packages = new Set();
for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  for (const id of chunk.moduleIds) {
    const at = id.lastIndexOf('/dist/');
    if (id.startsWith('/') && !id.includes('/node_modules/') && at > 0) packages.add(id.slice(0, at));
  }
}
const stamps = [...packages]
  .map((root) => join(root, 'tsconfig.tsbuildinfo'))
  .filter((stamp) => existsSync(stamp))
  .map((stamp) => relative(out, stamp))
  .sort();
writeFileSync(join(out, 'built-from.json'), `${JSON.stringify(stamps, null, 1)}\n`);
console.log(
  `reins bundle: ${output.length} files, built from ${stamps.length} packages, in ${relative(process.cwd(), out)}`,
);
