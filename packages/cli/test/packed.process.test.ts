// The packages as published: every workspace is packed with `npm pack`, the tarballs are installed
// into an empty folder (offline: third-party packages come from the npm cache the repo's own install
// warmed, at the versions the root lock pins), and there `reins --help`, `reins doctor` and the
// README's library imports run. Catches what only works inside the monorepo: an undeclared runtime
// dependency, a file left out of `files` (testkit's bin/hermetic.mjs), an export pointing at nothing.
// Run after `npm run build` (as `npm test` does). Install scripts are skipped: better-sqlite3 would
// compile SQLite offline, and nothing here opens a store.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const STUB = 'stub';
/** The Agent SDK's bundled Claude Code, replaced by the repo's empty stand-in as in the root package.json. */
const BUNDLED_CLAUDE = '@anthropic-ai/claude-agent-sdk-linux-x64';

interface LockEntry {
  version?: string;
  resolved?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/**
 * A package-lock for the empty folder: our tarballs, plus every third-party package the root lock
 * installs for production (same place in the tree, same integrity), so `npm ci --offline` needs no
 * registry metadata, only the cached tarballs.
 */
function lockFor(tarballs: Map<string, string>): { manifest: object; lock: object } {
  const root = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const dependencies = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  const packages: Record<string, unknown> = { '': { name: 'packed-smoke', dependencies } };
  for (const [name, file] of tarballs) {
    const manifest = JSON.parse(readFileSync(join(repo, workspaceOf(name), 'package.json'), 'utf8')) as LockEntry;
    const { version, dependencies: deps, bin, engines, license } = manifest;
    packages[`node_modules/${name}`] = { version, resolved: `file:${file}`, license, dependencies: deps, bin, engines };
  }
  for (const [path, entry] of Object.entries(root.packages)) {
    if (!path.startsWith('node_modules/') || path.startsWith('node_modules/@reins/') || entry.link) continue;
    if (entry.dev && !entry.optional) continue;
    const { devOptional: _devOptional, ...rest } = entry;
    packages[path] = rest;
  }
  packages[`node_modules/${BUNDLED_CLAUDE}`] = { resolved: STUB, link: true };
  packages[STUB] = { name: BUNDLED_CLAUDE, version: '0.0.0-reins-stub' };
  return {
    manifest: { name: 'packed-smoke', private: true, dependencies, overrides: { [BUNDLED_CLAUDE]: `file:./${STUB}` } },
    lock: { name: 'packed-smoke', lockfileVersion: 3, requires: true, packages },
  };
}

function workspaceOf(name: string): string {
  return `packages/${name.slice('@reins/'.length)}`;
}

describe('the packed tarballs, installed into an empty folder', () => {
  let dir = '';
  let app = '';
  const reins = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    run(join(app, 'node_modules', '.bin', 'reins'), args, {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: join(dir, 'home'), REINS_HOME: join(dir, 'home', '.reins'), ...env },
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reins-packed-'));
    app = join(dir, 'app');
    const tgz = join(dir, 'tgz');
    await mkdir(tgz, { recursive: true });
    await mkdir(app, { recursive: true });
    await run('npm', ['pack', '--workspaces', '--silent', '--pack-destination', tgz], { cwd: repo });
    const workspaces = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { workspaces: string[] })
      .workspaces;
    const tarballs = new Map<string, string>();
    for (const workspace of workspaces) {
      const { name, version } = JSON.parse(readFileSync(join(repo, workspace, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
      };
      const file = `${name.replace('@', '').replace('/', '-')}-${version}.tgz`;
      expect(readdirSync(tgz), `npm pack made no ${file}`).toContain(file);
      tarballs.set(name, join(tgz, file));
    }
    const { manifest, lock } = lockFor(tarballs);
    writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
    writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2));
    await cp(join(repo, 'stubs', 'no-bundled-claude'), join(app, STUB), { recursive: true });
    try {
      await run('npm', ['ci', '--offline', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'], { cwd: app });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      const hint = /ENOTCACHED/.test(stderr)
        ? ' (the npm cache lacks a pinned package: run `npm ci` at the root first)'
        : '';
      throw new Error(`npm ci of the packed tarballs failed${hint}:\n${stderr.slice(-2000)}`);
    }
  }, 900_000);

  // The installed tree is a few thousand files: removing it takes seconds on a busy machine.
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('reins --help prints the commands', async () => {
    const { stdout } = await reins(['--help']);
    expect(stdout).toMatch(/^Usage: reins <command>/m);
    expect(stdout).toMatch(/^\s+doctor\b/m);
  }, 60_000);

  it('reins runs from its bundle there: a bridge answers --version', async () => {
    expect(existsSync(join(app, 'node_modules', '@reins', 'cli', 'dist', 'bundle', 'reins.mjs'))).toBe(true);
    const { stdout } = await reins(['bridge', 'codex-app-server', '--version']);
    expect(stdout).toMatch(/^reins-bridge \d+\.\d+\.\d+ \(codex app-server protocol of Codex /);
  }, 60_000);

  it('reins doctor lists every harness (none installed on this PATH-less home)', async () => {
    const { stdout } = await reins(['doctor'], { PATH: '/usr/bin:/bin' });
    expect(stdout).toMatch(/^Reins \d+\.\d+\.\d+: harnesses/m);
    for (const id of ['claude-code', 'codex', 'pi', 'acp']) expect(stdout).toMatch(new RegExp(`^${id}\\s+yes\\s`, 'm'));
  }, 60_000);

  it("the README's library imports resolve and every library package loads", async () => {
    const script = [
      "import { createHarness } from '@reins/harnesses';",
      "import { connect } from '@reins/client';",
      'const loaded = [];',
      "for (const name of ['@reins/core', '@reins/protocol', '@reins/testkit', '@reins/daemon', '@reins/bridges']) {",
      "  loaded.push(name + ':' + (Object.keys(await import(name)).length > 0));",
      '}',
      'console.log(JSON.stringify([typeof createHarness, typeof connect, ...loaded]));',
    ].join('\n');
    writeFileSync(join(app, 'snippet.mjs'), script);
    const { stdout } = await run(process.execPath, ['snippet.mjs'], { cwd: app });
    expect(JSON.parse(stdout)).toEqual([
      'function',
      'function',
      '@reins/core:true',
      '@reins/protocol:true',
      '@reins/testkit:true',
      '@reins/daemon:true',
      '@reins/bridges:true',
    ]);
  }, 60_000);

  it('testkit ships bin/hermetic.mjs where the CLI looks for it', async () => {
    const script = "console.log(new URL('../bin/hermetic.mjs', import.meta.resolve('@reins/testkit')).pathname)";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    expect(readFileSync(stdout.trim(), 'utf8')).toMatch(/^#!|^\/\//);
  }, 60_000);
});
