import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BINARY_HASHES_FILE, BinaryHashes, type FileIdentity } from './binary-hashes.js';
import { fingerprintBinary, sha256File } from './discovery.js';

const folders: string[] = [];
async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'reins-hashes-'));
  folders.push(made);
  return made;
}
afterEach(async () => {
  delete process.env.REINS_HOME;
  await Promise.all(folders.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

async function identity(path: string): Promise<FileIdentity> {
  const { dev, ino, size, mtimeMs, ctimeMs } = await stat(path);
  return { realPath: path, dev, ino, size, mtimeMs, ctimeMs };
}

describe('binary hashes remembered across processes', () => {
  it('gives back a hash only for the same unchanged file', async () => {
    const dir = await folder();
    const binary = join(dir, 'tool');
    await writeFile(binary, 'one');
    const hashes = new BinaryHashes(join(dir, 'home', BINARY_HASHES_FILE));
    const before = await identity(binary);
    await hashes.set(before, 'a'.repeat(64));
    expect(await new BinaryHashes(join(dir, 'home', BINARY_HASHES_FILE)).get(before)).toBe('a'.repeat(64));
    await writeFile(binary, 'two'); // a new version: ctime (and here content) moves
    expect(await hashes.get(await identity(binary))).toBeUndefined();
  });

  it('treats a broken or unwritable file as an empty cache', async () => {
    const dir = await folder();
    const path = join(dir, BINARY_HASHES_FILE);
    await writeFile(path, '{not json');
    const file = await identity(path);
    expect(await new BinaryHashes(path).get(file)).toBeUndefined();
    await writeFile(path, JSON.stringify({ x: { sha256: 'not-a-hash' } }));
    expect(await new BinaryHashes(path).get(file)).toBeUndefined();
    const readOnly = await folder();
    await chmod(readOnly, 0o500);
    await expect(new BinaryHashes(join(readOnly, 'sub', BINARY_HASHES_FILE)).set(file, 'b'.repeat(64))).resolves.toBe(
      undefined,
    );
  });

  it('fingerprintBinary hashes a binary once and remembers it in $REINS_HOME', async () => {
    const dir = await folder();
    process.env.REINS_HOME = join(dir, 'home');
    const binary = join(dir, 'fake-cli');
    await writeFile(binary, '#!/bin/sh\necho fake-cli 1.2.3\n', { mode: 0o755 });
    const spec = { id: 'codex' as const, names: ['fake-cli'] };
    const found = await fingerprintBinary(binary, spec);
    expect(found.sha256).toBe(await sha256File(binary));
    const stored = JSON.parse(await readFile(join(dir, 'home', BINARY_HASHES_FILE), 'utf8'));
    expect(Object.values(stored)).toEqual([{ sha256: found.sha256, at: expect.any(Number) }]);

    // Another process finds the remembered hash instead of reading the file (seeded with a marker here).
    const other = join(dir, 'other-cli');
    await writeFile(other, '#!/bin/sh\necho other-cli 1.2.3\n', { mode: 0o755 });
    await BinaryHashes.forEnv().set(await identity(other), 'c'.repeat(64));
    expect((await fingerprintBinary(other, spec)).sha256).toBe('c'.repeat(64));
  });
});
