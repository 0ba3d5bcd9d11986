// The sha256 of each harness binary, remembered across processes in $REINS_HOME/binary-hashes.json.
// Hashing a 300-400 MB CLI (Codex, Claude Code) costs about a second, and every fresh Reins process
// (`reins run`, a bridge, the first session of a library user) paid it before its first frame. A
// remembered hash is used only while the file's identity is unchanged: real path, device, inode, size,
// mtime and ctime (ctime moves on every write and cannot be set back by a user, as in git's index).
// The file is a cache: unreadable or unwritable, Reins hashes again and says nothing.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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

interface Entry {
  sha256: string;
  at: number;
}

function keyOf(file: FileIdentity): string {
  return [file.realPath, file.dev, file.ino, file.size, file.mtimeMs, file.ctimeMs].join('\u0000');
}

export class BinaryHashes {
  constructor(private readonly path: string) {}

  static forEnv(env: Record<string, string | undefined> = process.env): BinaryHashes {
    return new BinaryHashes(join(reinsHome(env), BINARY_HASHES_FILE));
  }

  async get(file: FileIdentity): Promise<string | undefined> {
    const entry = (await this.read()).get(keyOf(file));
    return entry?.sha256;
  }

  async set(file: FileIdentity, sha256: string): Promise<void> {
    try {
      const entries = await this.read();
      entries.set(keyOf(file), { sha256, at: Date.now() });
      const newest = [...entries].sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES);
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Written whole then renamed, so a concurrent reader sees the old file or the new one.
      const temporary = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temporary, `${JSON.stringify(Object.fromEntries(newest))}\n`, { mode: 0o600 });
      await rename(temporary, this.path);
    } catch {
      // A cache that cannot be written costs the next process one hash.
    }
  }

  private async read(): Promise<Map<string, Entry>> {
    const entries = new Map<string, Entry>();
    try {
      const parsed: unknown = JSON.parse(await readFile(this.path, 'utf8'));
      if (!isRecord(parsed)) return entries;
      for (const [key, value] of Object.entries(parsed)) {
        if (isRecord(value) && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256)) {
          entries.set(key, { sha256: value.sha256, at: typeof value.at === 'number' ? value.at : 0 });
        }
      }
    } catch {
      // Missing or unreadable: nothing remembered.
    }
    return entries;
  }
}
