// The process table as tests read it (Linux /proc): who is alive, in which group, under whom. Tests that
// check what a run left behind (orphans, reaped groups) and the conformance's orphan watch share it.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** The stat state letter: 'Z' is a zombie (dead, not yet reaped). */
  state: string;
}

function readEntry(pid: string): ProcessEntry | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces: the fields start after its closing one.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(pid), state: fields[0] ?? '', ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every process now. */
export function processTable(): ProcessEntry[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(readEntry)
    .filter((entry): entry is ProcessEntry => entry !== undefined);
}

/** Every descendant of `root` (not `root` itself), in one reading of the table. */
export function descendantsOf(root: number, table: ProcessEntry[] = processTable()): ProcessEntry[] {
  const family = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of table) {
      if (family.has(entry.ppid) && !family.has(entry.pid)) {
        family.add(entry.pid);
        grew = true;
      }
    }
  }
  return table.filter((entry) => entry.pid !== root && family.has(entry.pid));
}

/** The live (non-zombie) processes in any of `groups`. */
export function aliveInGroups(groups: ReadonlySet<number>): ProcessEntry[] {
  return processTable().filter((entry) => groups.has(entry.pgid) && entry.state !== 'Z');
}

export function isProcessAlive(pid: number): boolean {
  const entry = readEntry(String(pid));
  return entry !== undefined && entry.state !== 'Z';
}

/**
 * A Reins daemon's child watcher (docs/architecture/daemon.md, "Processes") is no harness: its command
 * line names it from its first instant (its process name changes only once Node runs).
 */
export function isDaemonWatcher(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('reins-watcher');
  } catch {
    return false;
  }
}
