// The protocol comparison's pure parts: folder diffs (VERSION left out) and method names of a generated union.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffFolders, methodNames } from './protocol.js';

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('protocol diff', () => {
  it('lists added, removed and changed files, not VERSION', async () => {
    dir = await mkdtemp(join(tmpdir(), 'reins-canary-protocol-'));
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    for (const root of [a, b]) await mkdir(join(root, 'v2'), { recursive: true });
    await writeFile(join(a, 'VERSION'), 'codex-cli 0.169.0\n');
    await writeFile(join(b, 'VERSION'), 'codex-cli 0.171.0\n');
    await writeFile(join(a, 'Same.ts'), 'x');
    await writeFile(join(b, 'Same.ts'), 'x');
    await writeFile(join(a, 'v2/Item.ts'), 'old');
    await writeFile(join(b, 'v2/Item.ts'), 'new');
    await writeFile(join(a, 'Gone.ts'), 'x');
    await writeFile(join(b, 'v2/New.ts'), 'x');
    expect(diffFolders(a, b)).toEqual({
      files: 3,
      added: ['v2/New.ts'],
      removed: ['Gone.ts'],
      changed: ['v2/Item.ts'],
    });
  });

  it('reads the method names of a generated request union', () => {
    const text =
      'export type ClientRequest = { "method": "initialize", id: RequestId, params: X } | { "method": "thread/start", id: RequestId };';
    expect(methodNames(text)).toEqual(['initialize', 'thread/start']);
  });
});
