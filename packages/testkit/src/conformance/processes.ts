// Orphan detection for the "no orphan process after close" behaviour: remember the process groups
// of this process's children while a session lives, and after close() make sure no live process
// is left in any of them. Linux only (reads /proc).
import { aliveInGroups, isDaemonWatcher, type ProcessEntry, processTable } from '../processes/table.js';

export const canTrackProcesses = process.platform === 'linux';

export class ProcessGroupWatch {
  private readonly groups = new Set<number>();

  /** Notes the process groups of this process's current children (call while the session lives). */
  sample(): void {
    for (const stat of processTable()) {
      if (stat.ppid === process.pid && stat.pgid !== process.pid && !isDaemonWatcher(stat.pid)) {
        this.groups.add(stat.pgid);
      }
    }
  }

  get groupCount(): number {
    return this.groups.size;
  }

  /** Live (non-zombie) processes still in a noted group. */
  survivors(): ProcessEntry[] {
    return aliveInGroups(this.groups);
  }
}
