// The version probe asked once per unchanged binary: across processes through the cache folder (a new
// process is a fresh module graph here: vi.resetModules), again after an upgrade, past a damaged or
// unwritable cache; a probe that did not answer is kept by this process only.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BinarySpec } from './discovery.js';
import { VERSION_PROBES_FILE } from './discovery-versions.js';

const SPEC: BinarySpec = { id: 'codex', names: ['reins-fake-codex'] };
let root: string;
let savedHome: string | undefined;

/** A binary that notes each run in `runs` and prints `codex-cli <version>` (or fails). */
async function countingBinary(path: string, runs: string, version: string, exitCode = 0): Promise<void> {
  await writeFile(path, `#!/bin/sh\necho run >> "${runs}"\necho "codex-cli ${version}"\nexit ${exitCode}\n`);
  await chmod(path, 0o755);
}

async function runCount(runs: string): Promise<number> {
  return (await readFile(runs, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

/** runVersionProbe of a fresh module graph: what a new Reins process sees. */
async function probeInNewProcess(path: string) {
  vi.resetModules();
  const { runVersionProbe } = await import('./discovery.js');
  return (spec = SPEC, env: Record<string, string | undefined> = {}) =>
    runVersionProbe(path, spec, { PATH: process.env.PATH, ...env }, 5000);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-versions-'));
  savedHome = process.env.REINS_HOME;
  process.env.REINS_HOME = join(root, 'home');
});
afterEach(async () => {
  if (savedHome === undefined) delete process.env.REINS_HOME;
  else process.env.REINS_HOME = savedHome;
  await rm(root, { recursive: true, force: true });
});

describe('version probes remembered across processes', () => {
  it('a second process runs no --version; an upgraded binary is probed again', async () => {
    const binary = join(root, 'codex');
    const runs = join(root, 'runs');
    await countingBinary(binary, runs, '0.1.0');
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.1.0' });
    expect(await runCount(runs)).toBe(1);
    const second = await probeInNewProcess(binary);
    expect(await second()).toEqual({ answered: true, version: '0.1.0' });
    expect(await second()).toEqual({ answered: true, version: '0.1.0' });
    expect(await runCount(runs)).toBe(1);
    const stored = JSON.parse(await readFile(join(root, 'home', 'cache', VERSION_PROBES_FILE), 'utf8'));
    expect(Object.values(stored)).toEqual([expect.objectContaining({ version: '0.1.0' })]);

    await countingBinary(binary, runs, '0.2.0'); // the upgrade: a new file in the same place
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.2.0' });
    expect(await runCount(runs)).toBe(2);
  });

  it('another probe of the same file (other arguments, other harness) is asked on its own', async () => {
    const binary = join(root, 'codex');
    const runs = join(root, 'runs');
    await countingBinary(binary, runs, '0.1.0');
    const probe = await probeInNewProcess(binary);
    await probe();
    await probe({ ...SPEC, versionArgs: ['version'] });
    await probe({ ...SPEC, id: 'codex-acp' });
    expect(await runCount(runs)).toBe(3);
  });

  it('the same file under another environment is asked again (a wrapper or agent may answer by it)', async () => {
    const binary = join(root, 'codex');
    const runs = join(root, 'runs');
    await writeFile(binary, `#!/bin/sh\necho run >> "${runs}"\necho "codex-cli \${FAKE_VERSION:-0.1.0}"\n`);
    await chmod(binary, 0o755);
    expect(await (await probeInNewProcess(binary))(SPEC, { FAKE_VERSION: '9.9.9' })).toEqual({
      answered: true,
      version: '9.9.9',
    });
    const later = await probeInNewProcess(binary);
    expect(await later(SPEC, { FAKE_VERSION: '0.16.0' })).toEqual({ answered: true, version: '0.16.0' });
    expect(await later(SPEC, { FAKE_VERSION: '9.9.9' })).toEqual({ answered: true, version: '9.9.9' });
    expect(await runCount(runs)).toBe(2);
  });

  it('ignores a damaged cache file and writes it again; an unwritable one changes nothing', async () => {
    const binary = join(root, 'codex');
    const runs = join(root, 'runs');
    await countingBinary(binary, runs, '0.1.0');
    const cache = join(root, 'home', 'cache');
    await mkdir(cache, { recursive: true });
    await writeFile(join(cache, VERSION_PROBES_FILE), '{"half": {"version": 3}, ');
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.1.0' });
    expect(await runCount(runs)).toBe(1);
    expect(Object.keys(JSON.parse(await readFile(join(cache, VERSION_PROBES_FILE), 'utf8')))).toHaveLength(1);
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.1.0' });
    expect(await runCount(runs)).toBe(1);

    // A REINS_HOME that is a file: no cache folder can be made under it (whoever runs the test).
    const notAFolder = join(root, 'not-a-folder');
    await writeFile(notAFolder, '');
    process.env.REINS_HOME = notAFolder;
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.1.0' });
    expect(await (await probeInNewProcess(binary))()).toEqual({ answered: true, version: '0.1.0' });
    expect(await runCount(runs)).toBe(3);
  });

  it('a probe that failed is kept by its process only, and concurrent probes share one run', async () => {
    const binary = join(root, 'codex');
    const runs = join(root, 'runs');
    await countingBinary(binary, runs, '0.1.0', 3);
    const probe = await probeInNewProcess(binary);
    const [first, second] = await Promise.all([probe(), probe()]);
    expect(first).toMatchObject({ answered: false, error: expect.stringContaining('exited with code 3') });
    expect(second).toEqual(first);
    expect(await probe()).toEqual(first);
    expect(await runCount(runs)).toBe(1);
    // Not on disk: the next process asks again.
    expect(await (await probeInNewProcess(binary))()).toMatchObject({ answered: false });
    expect(await runCount(runs)).toBe(2);
  });
});
