// $REINS_HOME/daemon.json: how local clients find the running daemon (url, pid, token). Written
// atomically with mode 0600 (the token is a secret), in a 0700 folder when we create it, and removed
// on exit only while it is still ours. A file left by a daemon that still runs is never overwritten.
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DAEMON_FILE, type DaemonInfo, DaemonInfoSchema } from '@reins/client';
import { ReinsError } from '@reins/core';

export function daemonFilePath(home: string): string {
  return join(home, DAEMON_FILE);
}

/** The daemon.json of `home`, or undefined when there is none or it is not a daemon file. */
export async function readDaemonFile(home: string): Promise<DaemonInfo | undefined> {
  let text: string;
  try {
    text = await readFile(daemonFilePath(home), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = DaemonInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function writeDaemonFile(home: string, info: DaemonInfo): Promise<string> {
  const path = daemonFilePath(home);
  const existing = await readDaemonFile(home);
  if (existing && isAlive(existing.pid)) {
    throw new ReinsError(
      'invalid_input',
      `Another Reins daemon is running (pid ${existing.pid}, ${existing.url}); stop it first, or set REINS_HOME to another folder to run a second one.`,
      { data: { pid: existing.pid, url: existing.url, path } },
    );
  }
  await mkdir(home, { recursive: true, mode: 0o700 });
  const temp = join(home, `.${DAEMON_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // The mode given to open() is masked by the umask; make sure.
  await chmod(temp, 0o600);
  await rename(temp, path);
  return path;
}

/** Removes daemon.json if it still describes this daemon (another may have started since). */
export async function removeDaemonFile(home: string, token: string): Promise<void> {
  const current = await readDaemonFile(home);
  if (current?.token !== token) return;
  await unlink(daemonFilePath(home)).catch(() => {});
}

/** The same, synchronously, for process 'exit' (no await possible there). */
export function removeDaemonFileSync(home: string, token: string): void {
  try {
    const current = JSON.parse(readFileSync(daemonFilePath(home), 'utf8')) as { token?: unknown };
    if (current.token === token) unlinkSync(daemonFilePath(home));
  } catch {
    // gone already, or not ours to remove
  }
}
