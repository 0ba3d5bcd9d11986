// `npm run build` (after tsc): bundles the compiled CLI (dist/bin.js and everything it imports) into
// dist/bundle/, so `reins` starts by reading a few files instead of several hundred modules
// (docs/architecture/bridges.md, "Start-up").
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const cli = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(cli, 'dist', 'bundle');
const packagesDir = dirname(cli);
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

/**
 * Modules the bundle loads on their first call instead of at start-up: each costs a start-up that a
 * first turn does not use (docs/architecture/bridges.md, "Start-up"). Each is bundled on its own into a
 * CommonJS file beside the chunks, and every import of it gets a stand-in with the same functions, each
 * of which requires that file on its first call: its code is neither read nor compiled before. So a
 * module here exports functions only, and imports third-party code only (a Reins module it imported
 * would be a second copy, with its own state, in that file).
 */
const LAZY_MODULES = [
  // ajv (~270 KB with its dependencies): only a turn with an output schema compiles one.
  {
    path: join(packagesDir, 'core/dist/structured-output/validators.js'),
    exports: ['validatorFor'],
    file: 'lazy-validators.cjs',
  },
  // ws (~120 KB): only a bridge listening on a socket (--listen ws:// | unix://) serves one.
  {
    path: join(packagesDir, 'bridges/dist/codex-app-server/ws-server.js'),
    exports: ['webSocketServer'],
    file: 'lazy-ws-server.cjs',
  },
];
const LAZY_PREFIX = '\0reins-lazy:';

const lazyModules = {
  name: 'reins-lazy-modules',
  async resolveId(source, importer, options) {
    if (!importer || options.kind === 'require-call') return null;
    const name = source.slice(source.lastIndexOf('/') + 1);
    if (!LAZY_MODULES.some((lazy) => lazy.path.endsWith(`/${name}`))) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    return resolved && LAZY_MODULES.some((lazy) => lazy.path === resolved.id) ? `${LAZY_PREFIX}${resolved.id}` : null;
  },
  load(id) {
    if (!id.startsWith(LAZY_PREFIX)) return null;
    const path = id.slice(LAZY_PREFIX.length);
    const { exports, file } = LAZY_MODULES.find((lazy) => lazy.path === path);
    const code = readFileSync(path, 'utf8');
    for (const name of exports) {
      if (!new RegExp(`^export (async )?function ${name}\\(`, 'm').test(code)) {
        throw new Error(`bundle: ${relative(packagesDir, path)} has no exported function ${name} (LAZY_MODULES)`);
      }
    }
    // The chunk that holds the stand-in is in the same folder as the file (import.meta.url finds it).
    return [
      "import { createRequire } from 'node:module';",
      'let loaded;',
      `const load = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(`./${file}`)}));`,
      ...exports.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
    ].join('\n');
  },
};

/**
 * Core's `#ajv` as bundlers get it (ajv.ts, which imports ajv) rather than as Node does (ajv-node.ts,
 * which requires it from node_modules on first use): ajv goes into lazy-validators.cjs.
 */
const ajvInside = {
  name: 'reins-ajv-inside',
  resolveId(source, importer) {
    if (source !== '#ajv' || !importer?.startsWith(join(packagesDir, 'core/'))) return null;
    return join(packagesDir, 'core/dist/structured-output/ajv.js');
  },
};

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { reins: join(cli, 'dist', 'bin.js') },
  platform: 'node',
  external: EXTERNAL,
  plugins: [versionConstant, lazyModules],
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
for (const lazy of LAZY_MODULES) {
  const alone = await rolldown({
    input: lazy.path,
    platform: 'node',
    external: EXTERNAL,
    plugins: [ajvInside],
    logLevel: 'warn',
  });
  await alone.write({ file: join(out, lazy.file), format: 'cjs' });
  await alone.close();
}

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
