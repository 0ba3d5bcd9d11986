// A real harness CLI as a child process for the real tier: its own process group (so close() leaves no
// orphan), stdout split into lines, stderr kept for failure messages, and every wait under a deadline.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { HarnessLaunch } from '../../src/harness-homes/index.js';
import { scaled } from './deadlines.js';

export class HarnessProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  private stderrText = '';
  private stdoutRest = '';
  private readonly waiters = new Set<() => void>();
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(launch: HarnessLaunch, cwd: string) {
    this.child = spawn(launch.command, launch.args, { cwd, env: launch.env, detached: true, stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.stdoutRest + chunk).split('\n');
      this.stdoutRest = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) this.lines.push(line);
      this.wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      // Keep the tail only: some CLIs log a lot, and the end is what explains a failure.
      this.stderrText = (this.stderrText + chunk).slice(-20_000);
    });
    this.child.on('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      this.wake();
    });
    this.child.on('error', (error) => {
      this.stderrText += `\n[spawn error] ${error.message}`;
      this.exitInfo = { code: null, signal: null };
      this.wake();
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  get exit() {
    return this.exitInfo;
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Resolves when `check` returns a value; rejects at the (scaled) deadline or when the process exits first. */
  waitFor<T>(what: string, check: () => T | undefined, baseDeadlineMs: number): Promise<T> {
    const deadlineMs = scaled(baseDeadlineMs);
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value !== undefined) return done(() => resolve(value));
        if (this.exitInfo) {
          return done(() =>
            reject(new Error(`${what}: process exited (${JSON.stringify(this.exitInfo)})\n${this.describe()}`)),
          );
        }
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`${what}: no answer within ${deadlineMs} ms\n${this.describe()}`))),
        deadlineMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(attempt);
        settle();
      };
      this.waiters.add(attempt);
      attempt();
    });
  }

  /** The first stdout line (parsed as JSON) for which `match` holds, searching from `from`. */
  waitForJson<T = Record<string, unknown>>(
    what: string,
    match: (value: Record<string, unknown>) => boolean,
    deadlineMs: number,
    from = 0,
  ): Promise<T> {
    return this.waitFor(
      what,
      () => {
        for (const line of this.lines.slice(from)) {
          const value = parseJsonLine(line);
          if (value && match(value)) return value as T;
        }
        return undefined;
      },
      deadlineMs,
    );
  }

  /** SIGTERM to the whole group, SIGKILL after a grace period; resolves once the child is gone. */
  async close(graceMs = 3_000): Promise<void> {
    if (this.exitInfo || this.child.pid === undefined) return;
    const pid = this.child.pid;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
    // The CLI may have left children of its own in the group.
    signalGroup(pid, 'SIGKILL');
  }

  describe(): string {
    return `--- stdout (last 20 lines) ---\n${this.lines.slice(-20).join('\n')}\n--- stderr (tail) ---\n${this.stderrText.slice(-4_000)}`;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
