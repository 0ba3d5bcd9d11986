// Facts about harness binaries remembered across processes, each valid only while the file is unchanged:
// its sha256 in $REINS_HOME/binary-hashes.json (here), its version probe in Reins' cache folder
// (discovery-versions.ts). Hashing a 300-400 MB CLI (Codex, Claude Code) costs about a second, and every
// fresh Reins process (`reins run`, a bridge, the first session of a library user) paid it before its
// first frame. A remembered fact is used only while the file's identity is unchanged: real path, device,
// inode, size, mtime and ctime (ctime moves on every write and cannot be set back by a user, as in git's
// index). The files are caches: unreadable or unwritable, Reins asks again and says nothing.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isRecord } from '@reins/core';
import { reinsHome } from './evidence.js';

export const BINARY_HASHES_FILE = 'binary-hashes.json';
/** Most entries kept (the newest); a machine has a few harness binaries, and each upgrade adds one. */
const MAX_ENTRIES = 64;

export interface FileIdentity {
  realPath: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** The identity of the file `path` resolves to now (rejects when it cannot be read). */
export async function fileIdentity(path: string): Promise<FileIdentity> {
  const realPath = await realpath(path);
  const { dev, ino, size, mtimeMs, ctimeMs } = await stat(realPath);
  return { realPath, dev, ino, size, mtimeMs, ctimeMs };
}

export function fileIdentityKey(file: FileIdentity): string {
  return [file.realPath, file.dev, file.ino, file.size, file.mtimeMs, file.ctimeMs].join('\u0000');
}

/** fileIdentityKey of the file `path` names now, or 'gone' (two system calls: an upgrade in place changes it). */
export function fileStamp(path: string): Promise<string> {
  return fileIdentity(path).then(fileIdentityKey, () => 'gone');
}

/**
 * A JSON file of facts by key (the newest MAX_ENTRIES), each with the time it was stored. `valid`
 * keeps out entries that are not facts of this kind (a damaged or foreign file reads as fewer entries).
 */
export class RememberedFacts<T> {
  constructor(
    readonly path: string,
    private readonly valid: (value: unknown) => value is T,
  ) {}

  async get(key: string): Promise<T | undefined> {
    return (await this.read()).get(key)?.fact;
  }

  async set(key: string, fact: T): Promise<void> {
    try {
      const entries = await this.read();
      entries.set(key, { fact, at: Date.now() });
      const newest = [...entries].sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES);
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Written whole then renamed, so a concurrent reader sees the old file or the new one.
      const temporary = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
      const stored = Object.fromEntries(newest.map(([key, entry]) => [key, { ...entry.fact, at: entry.at }]));
      await writeFile(temporary, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
      await rename(temporary, this.path);
    } catch {
      // A cache that cannot be written costs the next process one more probe or hash.
    }
  }

  private async read(): Promise<Map<string, { fact: T; at: number }>> {
    const entries = new Map<string, { fact: T; at: number }>();
    try {
      const parsed: unknown = JSON.parse(await readFile(this.path, 'utf8'));
      if (!isRecord(parsed)) return entries;
      for (const [key, value] of Object.entries(parsed)) {
        if (!isRecord(value)) continue;
        const { at, ...fact } = value;
        if (this.valid(fact)) entries.set(key, { fact, at: typeof at === 'number' ? at : 0 });
      }
    } catch {
      // Missing or unreadable: nothing remembered.
    }
    return entries;
  }
}

const isHash = (value: unknown): value is { sha256: string } =>
  isRecord(value) && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256);

export class BinaryHashes {
  private readonly facts: RememberedFacts<{ sha256: string }>;

  constructor(path: string) {
    this.facts = new RememberedFacts(path, isHash);
  }

  static forEnv(env: Record<string, string | undefined> = process.env): BinaryHashes {
    return new BinaryHashes(join(reinsHome(env), BINARY_HASHES_FILE));
  }

  async get(file: FileIdentity): Promise<string | undefined> {
    return (await this.facts.get(fileIdentityKey(file)))?.sha256;
  }

  async set(file: FileIdentity, sha256: string): Promise<void> {
    await this.facts.set(fileIdentityKey(file), { sha256 });
  }
}
