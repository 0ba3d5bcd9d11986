// Harness process groups end when their daemon dies, even by SIGKILL: a small watcher process per
// daemon (Linux) holds the read end of a pipe from the daemon and hears of every group it starts
// and ends. When the pipe reaches EOF (the daemon exited or was killed: the kernel closes its end)
// the watcher SIGTERMs each group still recorded, SIGKILLs what is left a second later, and exits.
// A group's leader is checked against its recorded start time first, so a reused pid is never hit;
// a group whose leader is gone is killed by its id, which Linux does not reuse while a member lives.
// The reaper at the next start still handles what a watcher could not (docs/architecture/daemon.md,
// "Processes"). The watcher is spawned here, not through the harness runtime: it is no harness, and
// the runtime's exit hook would kill it with the daemon.
import { type ChildProcess, spawn } from 'node:child_process';
import { canReadProcesses } from './proc.js';

/** Its process name (comm, /proc/<pid>/stat), so tools and tests can tell it from a harness. */
export const WATCHER_TITLE = 'reins-watcher';

/**
 * The watcher's own program (CommonJS for `node -e`). Lines on stdin: `+<pgid> <startTicks>` when a
 * group starts, `-<pgid>` when it ends.
 */
const WATCHER_SOURCE = `
process.title = '${WATCHER_TITLE}';
const { readFileSync } = require('node:fs');
const groups = new Map();
let pending = '';
const startTicks = (pid) => {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
};
const signal = (name) => {
  for (const [pgid, ticks] of groups) {
    const now = startTicks(pgid);
    if (now !== undefined && now !== ticks) {
      groups.delete(pgid);
      continue;
    }
    try {
      process.kill(-pgid, name);
    } catch {
      groups.delete(pgid);
    }
  }
};
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  signal('SIGTERM');
  if (groups.size === 0) process.exit(0);
  setTimeout(() => {
    signal('SIGKILL');
    process.exit(0);
  }, 1000);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let newline = pending.indexOf('\\n'); newline >= 0; newline = pending.indexOf('\\n')) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    const [pgid, ticks] = line.slice(1).split(' ');
    if (line[0] === '+') groups.set(Number(pgid), ticks);
    else if (line[0] === '-') groups.delete(Number(pgid));
  }
});
process.stdin.on('end', end);
process.stdin.on('error', end);
for (const name of ['SIGINT', 'SIGHUP', 'SIGPIPE']) process.on(name, () => {});
`;

export class ChildWatcher {
  private constructor(private readonly child: ChildProcess) {}

  /** Starts the watcher where process start times can be read (Linux); undefined elsewhere. */
  static start(): ChildWatcher | undefined {
    if (!canReadProcesses) return undefined;
    const child = spawn(process.execPath, ['-e', WATCHER_SOURCE], {
      // Its own process group and session: a terminal's Ctrl+C or a kill of the daemon's group
      // does not reach it, and it outlives the daemon by design.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => {});
    child.stdin?.on('error', () => {});
    // Neither the process nor its pipe keeps the daemon's event loop alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return new ChildWatcher(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  started(pgid: number, startTicks: string | undefined): void {
    if (startTicks !== undefined) this.child.stdin?.write(`+${pgid} ${startTicks}\n`);
  }

  ended(pgid: number): void {
    this.child.stdin?.write(`-${pgid}\n`);
  }

  /** The daemon closes cleanly: its groups are already stopped, and the watcher exits. */
  close(): void {
    this.child.stdin?.end();
  }
}
