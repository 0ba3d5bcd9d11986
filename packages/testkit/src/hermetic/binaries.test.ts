// harnessBinary(): the error that names the setup command when harness-clis is not installed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HARNESS_IDS, HarnessNotInstalledError, harnessBinary } from './binaries.js';
import { makeTempHome } from './temp-home.js';

describe('harnessBinary', () => {
  let empty = '';
  afterAll(async () => {
    if (empty) await rm(empty, { recursive: true, force: true });
  });

  it.each(HARNESS_IDS)('%s: names `npm run setup:harnesses` when not installed', async (id) => {
    empty ||= await mkdtemp(join(tmpdir(), 'reins-no-clis-'));
    expect(() => harnessBinary(id, empty)).toThrow(HarnessNotInstalledError);
    expect(() => harnessBinary(id, empty)).toThrow(/npm run setup:harnesses/);
  });
});

describe('makeTempHome', () => {
  it('creates HOME and TMPDIR under one folder and removes it', async () => {
    const temp = await makeTempHome();
    expect(temp.home.startsWith(temp.dir)).toBe(true);
    expect(temp.tmp.startsWith(temp.dir)).toBe(true);
    await temp.cleanup();
    const { existsSync } = await import('node:fs');
    expect(existsSync(temp.dir)).toBe(false);
  });
});
