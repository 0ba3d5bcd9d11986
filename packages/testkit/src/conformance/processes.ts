// Orphan detection for the "no orphan process after close" behaviour: remember the process groups
// of this process's children while a session lives, and after close() make sure no live process
// is left in any of them. Linux only (reads /proc).
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

/**
 * A Reins daemon's child watcher (docs/architecture/daemon.md, "Processes") is no harness: its
 * command line names it from its first instant (its name changes only once Node runs).
 */
function isDaemonWatcher(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('reins-watcher');
  } catch {
    return false;
  }
}

function readStat(pid: string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { pid: Number(pid), state: fields[0] ?? '', ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(readStat)
    .filter((stat): stat is ProcStat => stat !== undefined);
}

export const canTrackProcesses = process.platform === 'linux';

export class ProcessGroupWatch {
  private readonly groups = new Set<number>();

  /** Notes the process groups of this process's current children (call while the session lives). */
  sample(): void {
    for (const stat of allProcesses()) {
      if (stat.ppid === process.pid && stat.pgid !== process.pid && !isDaemonWatcher(stat.pid)) {
        this.groups.add(stat.pgid);
      }
    }
  }

  get groupCount(): number {
    return this.groups.size;
  }

  /** Live (non-zombie) processes still in a noted group. */
  survivors(): ProcStat[] {
    return allProcesses().filter((stat) => this.groups.has(stat.pgid) && stat.state !== 'Z');
  }
}
