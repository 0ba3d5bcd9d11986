// A worker's identity and lock in its $REINS_HOME. The id is made once (host name plus a random
// suffix) and kept in cluster-worker.json, so a worker that restarts on the same home is the same
// worker and takes its sessions back. The lock is SQLite's EXCLUSIVE lock on cluster-worker.lock,
// held for the worker's life (the embedded store's mechanism and SQLite binding, sqlite-driver.ts;
// the OS drops it when the process dies): two workers on one home would claim the same sessions,
// so the second refuses.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { z } from 'zod';
import { isBusy, openSqlite } from '../store/sqlite-driver.js';

const IDENTITY_FILE = 'cluster-worker.json';
const LOCK_FILE = 'cluster-worker.lock';

const IdentitySchema = z.object({ workerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/** Host name as an id token: lower case letters, digits and dashes, at most 40 characters. */
export function hostToken(name: string): string {
  const token = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return token === '' ? 'worker' : token;
}

/** The worker id of this home, made and stored on first use. */
export async function workerIdentity(home: string): Promise<string> {
  const path = join(home, IDENTITY_FILE);
  try {
    const parsed = IdentitySchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (parsed.success) return parsed.data.workerId;
    throw new ReinsError(
      'invalid_input',
      `${path} is not a Reins worker identity: remove it (this home's worker then gets a new id and does not take back its old sessions).`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const workerId = `${hostToken(hostname())}-${randomBytes(3).toString('hex')}`;
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ workerId })}\n`, { mode: 0o600 });
  await rename(temporary, path);
  return workerId;
}

export interface HomeLock {
  release(): void;
}

/** Takes the home's worker lock; invalid_input naming the fix when another worker holds it. */
export function lockWorkerHome(home: string): HomeLock {
  const path = join(home, LOCK_FILE);
  const db = openSqlite(path);
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db.close();
    if (isBusy(error)) {
      throw new ReinsError(
        'invalid_input',
        `Another Reins worker runs on ${home} (it holds ${path}): stop it first, or give this one its own REINS_HOME.`,
        { data: { home, reason: 'locked' } },
      );
    }
    throw error;
  }
  return { release: () => db.close() };
}
