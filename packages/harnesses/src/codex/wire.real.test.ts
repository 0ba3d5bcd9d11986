// Drift test: the checked-in wire types are exactly what the pinned Codex generates today (through
// scripts/generate-codex-wire.mjs, byte for byte). Fails when the pin moves without regenerating.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertHermetic, harnessBinary } from '@reins/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/generate-codex-wire.mjs', import.meta.url));
const checkedIn = fileURLToPath(new URL('./wire/generated/', import.meta.url));

async function files(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(root, path)));
    else out.push(relative(root, path));
  }
  return out.sort();
}

describe('codex wire types', () => {
  let scratch = '';
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('match a fresh generate-ts of the pinned Codex byte for byte', async () => {
    await assertHermetic();
    const binary = harnessBinary('codex');
    scratch = await mkdtemp(join(tmpdir(), 'reins-codex-drift-'));
    const out = join(scratch, 'generated');
    execFileSync(process.execPath, [script, '--out', out, '--binary', binary.command], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const fresh = await files(out);
    const ours = await files(checkedIn);
    expect(ours).toEqual(fresh);
    expect(await readFile(join(out, 'VERSION'), 'utf8')).toContain(`codex-cli ${binary.version}`);
    const changed: string[] = [];
    for (const file of fresh) {
      const [a, b] = await Promise.all([readFile(join(out, file)), readFile(join(checkedIn, file))]);
      if (!a.equals(b)) changed.push(file);
    }
    expect(changed).toEqual([]);
  });
});
