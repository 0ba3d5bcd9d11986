// The processes one thread of a shared app-server left running. Codex does not stop a thread's shell
// command on turn/interrupt or thread/unsubscribe (0.169.0, 0.171.0: it runs until the app-server
// exits), so a session closing on a shared process would leave its command behind (contract.md,
// "Process hygiene"). Codex 0.171.0 starts each command in a process group of its own with
// CODEX_THREAD_ID=<thread id> in its environment: the descendants of the app-server that carry one of
// the session's thread ids are that session's, and only those are ended. Linux /proc; elsewhere
// nothing is found and the commands end with the process, as before sharing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TERM_GRACE_MS = 1_000;

interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

function procEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * The children of `pid`, from every one of its threads' `children` file (a child is listed under the
 * thread that forked it); undefined where the kernel keeps no such file (CONFIG_PROC_CHILDREN).
 */
function childrenOf(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone meanwhile
  }
  const children: number[] = [];
  for (const task of tasks) {
    let listed: string;
    try {
      listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(`/proc/${pid}/task/${task}`))
        return undefined;
      continue; // the thread ended meanwhile
    }
    for (const child of listed.trim().split(/\s+/)) if (child !== '') children.push(Number(child));
  }
  return children;
}

/**
 * Every descendant of `rootPid`, parents before children. Read from the descendants' own `children`
 * files: a session that closes on a shared app-server reads a few files per descendant, where reading
 * every process's stat (the fallback, on kernels without those files) took the daemon's event loop
 * for one read per process on the machine, once per session closed (100 sessions closing beside 300
 * processes: 30,000 synchronous reads).
 */
export function descendants(rootPid: number): ProcEntry[] {
  const out: ProcEntry[] = [];
  const queue = childrenOf(rootPid);
  if (queue === undefined) return descendantsFromScan(rootPid);
  while (queue.length > 0) {
    const entry = procEntry(queue.shift() as number);
    if (!entry) continue;
    out.push(entry);
    queue.push(...(childrenOf(entry.pid) ?? []));
  }
  return out;
}

/** The same from every process's stat. */
export function descendantsFromScan(rootPid: number): ProcEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, ProcEntry[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = procEntry(Number(name));
    if (entry) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  }
  const out: ProcEntry[] = [];
  const queue = [...(children.get(rootPid) ?? [])];
  while (queue.length > 0) {
    const entry = queue.shift() as ProcEntry;
    out.push(entry);
    queue.push(...(children.get(entry.pid) ?? []));
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
  const groups = new Set<number>();
  for (const entry of descendants(rootPid)) {
    const thread = threadOfProcess(entry.pid);
    // Never the app-server's own group: that would end every session on it.
    if (thread !== undefined && threads.has(thread) && entry.pgid !== rootPid) groups.add(entry.pgid);
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
