// A harness object's binary across an upgrade: resolved once while the file is unchanged (no second
// version probe), found again when the file it names is replaced (the new version), not found when it is
// removed. What a long-lived harness (a daemon's warm pool, its catalog) meets when the user upgrades.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createClaudeCodeHarness } from '../../claude-code/adapter.js';
import { createCodexHarness } from '../../codex/harness.js';
import type { BinarySpec } from '../discovery.js';
import { HarnessBinary } from './harness-binary.js';

const SPEC: BinarySpec = { id: 'codex', names: ['reins-fake-codex'] };
let root: string;
let savedHome: string | undefined;

/** A binary that notes each run in `runs` and prints `codex-cli <version>`. */
async function fakeCodex(path: string, runs: string, version: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\necho run >> "${runs}"\necho "codex-cli ${version}"\n`);
  await chmod(path, 0o755);
}

const runCount = async (runs: string) =>
  (await readFile(runs, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-harness-binary-'));
  savedHome = process.env.REINS_HOME;
  process.env.REINS_HOME = join(root, 'home'); // the version and hash caches, this test's own
});
afterEach(async () => {
  if (savedHome === undefined) delete process.env.REINS_HOME;
  else process.env.REINS_HOME = savedHome;
  await rm(root, { recursive: true, force: true });
});

it('keeps the binary while the file is unchanged, finds the upgrade, and says when it is gone', async () => {
  const path = join(root, 'reins-fake-codex');
  const runs = join(root, 'runs');
  await fakeCodex(path, runs, '0.171.0');
  const binary = new HarnessBinary(SPEC, { binaryPath: path, baseEnv: { PATH: process.env.PATH ?? '' } }, 'npm i');

  const first = await binary.resolve();
  expect(first.version).toBe('0.171.0');
  expect(await binary.resolve()).toBe(first);
  expect(await runCount(runs)).toBe(1);

  // An upgrade in place: another file at the same path (npm replaces the file).
  await rm(path);
  await fakeCodex(path, runs, '0.172.0');
  const upgraded = await binary.resolve();
  expect(upgraded.version).toBe('0.172.0');
  expect(upgraded.sha256).not.toBe(first.sha256);
  expect((await binary.discover()).found && (await binary.health()).status).toBe('ready');

  await rm(path);
  await expect(binary.resolve()).rejects.toMatchObject({ code: 'binary_not_found' });
  expect(await binary.health()).toMatchObject({ status: 'not_installed' });
});

it.each([
  ['codex', createCodexHarness, (version: string) => `codex-cli ${version}`],
  ['claude-code', createClaudeCodeHarness, (version: string) => `${version} (Claude Code)`],
] as const)('a %s harness object reports the upgraded version at its next discover()', async (_id, create, says) => {
  const path = join(root, 'cli');
  const write = async (version: string) => {
    await rm(path, { force: true });
    await writeFile(path, `#!/bin/sh\necho "${says(version)}"\n`);
    await chmod(path, 0o755);
  };
  await write('1.0.0');
  const harness = create({ binaryPath: path, baseEnv: { PATH: process.env.PATH ?? '' } });
  expect(await harness.discover()).toMatchObject({ found: true, binary: { version: '1.0.0' } });
  await write('1.1.0');
  expect(await harness.discover()).toMatchObject({ found: true, binary: { version: '1.1.0' } });
});
