// $REINS_HOME/daemon.json: how local clients find the running daemon (url, pid, token). Written
// atomically with mode 0600 (the token is a secret), in a 0700 folder when we create it, and removed
// on exit only while it is still ours. A file left by a daemon that still runs is never overwritten.
// "Still runs" is decided by more than the pid, which the kernel reuses: a daemon that holds the
// home's store lock knows any daemon.json it finds is stale; otherwise the recorded pid must be
// alive AND have started before the file was written (a reused pid started later).
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { DAEMON_FILE, type DaemonInfo, DaemonInfoSchema } from '@reins/protocol';
import { processStartMs } from './processes/proc.js';
import { noRoomToStartError } from './store/unavailable.js';

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

/** Whether the daemon a daemon.json describes may still run (pid alive, and not a reused pid). */
export function mayBeRunning(info: DaemonInfo): boolean {
  if (!isAlive(info.pid)) return false;
  const started = processStartMs(info.pid);
  // Unknown start time (not Linux): the pid alone has to do.
  return started === undefined || started <= info.startedAt;
}

/** The refusal when another daemon has this home (named from its daemon.json when there is one). */
export function anotherDaemonError(home: string, existing: DaemonInfo | undefined): ReinsError {
  const who = existing ? ` (pid ${existing.pid}, ${existing.url})` : '';
  return new ReinsError(
    'invalid_input',
    `Another Reins daemon is running${who} on ${home}; stop it first, or set REINS_HOME to another folder to run a second one.`,
    { data: { home, ...(existing ? { pid: existing.pid, url: existing.url } : {}) } },
  );
}

export interface WriteDaemonFileOptions {
  /** This daemon holds the home's store lock: whatever daemon.json is there is stale. */
  homeLocked?: boolean;
}

/** Writes daemon.json; returns its path and whether it replaced a stale one. */
export async function writeDaemonFile(
  home: string,
  info: DaemonInfo,
  options: WriteDaemonFileOptions = {},
): Promise<{ path: string; replacedStale: DaemonInfo | undefined }> {
  const path = daemonFilePath(home);
  const existing = await readDaemonFile(home);
  if (existing && !options.homeLocked && mayBeRunning(existing)) throw anotherDaemonError(home, existing);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const temp = join(home, `.${DAEMON_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    // The mode given to open() is masked by the umask; make sure.
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw noRoomToStartError(path, error) ?? error;
  }
  return { path, replacedStale: existing };
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
