// The processes one thread of a shared app-server left running. Codex does not stop a thread's shell
// command on turn/interrupt or thread/unsubscribe (0.169.0, 0.171.0: it runs until the app-server
// exits), so a session closing on a shared process would leave its command behind (contract.md,
// "Process hygiene"). Codex 0.171.0 starts each command in a process group of its own with
// CODEX_THREAD_ID=<thread id> in its environment: the descendants of the app-server that carry one of
// the session's thread ids are that session's, and only those are ended. Linux /proc; elsewhere
// nothing is found and the commands end with the process, as before sharing.
import { readdirSync, readFileSync } from 'node:fs';

const TERM_GRACE_MS = 1_000;

interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

function entries(): ProcEntry[] {
  const out: ProcEntry[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function threadOfProcess(pid: number): string | undefined {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    const entry = environ.split('\0').find((variable) => variable.startsWith('CODEX_THREAD_ID='));
    return entry?.slice('CODEX_THREAD_ID='.length);
  } catch {
    return undefined;
  }
}

/** Process groups under `rootPid` started for one of `threads`. */
export function threadProcessGroups(rootPid: number, threads: ReadonlySet<string>): number[] {
  if (threads.size === 0) return [];
  const all = entries();
  const children = new Map<number, ProcEntry[]>();
  for (const entry of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const groups = new Set<number>();
  const queue = [...(children.get(rootPid) ?? [])];
  while (queue.length > 0) {
    const entry = queue.shift() as ProcEntry;
    const thread = threadOfProcess(entry.pid);
    // Never the app-server's own group: that would end every session on it.
    if (thread !== undefined && threads.has(thread) && entry.pgid !== rootPid) groups.add(entry.pgid);
    queue.push(...(children.get(entry.pid) ?? []));
  }
  return [...groups];
}

function signal(pgid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, name);
    return true;
  } catch {
    return false;
  }
}

/** Ends the groups found for `threads` (SIGTERM, then SIGKILL after a grace); returns how many there were. */
export async function endThreadProcesses(rootPid: number, threads: ReadonlySet<string>): Promise<number> {
  const groups = threadProcessGroups(rootPid, threads);
  const signalled = groups.filter((pgid) => signal(pgid, 'SIGTERM'));
  if (signalled.length === 0) return groups.length;
  const deadline = Date.now() + TERM_GRACE_MS;
  let left = signalled;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter((pgid) => signal(pgid, 0));
  }
  for (const pgid of left) signal(pgid, 'SIGKILL');
  return groups.length;
}
