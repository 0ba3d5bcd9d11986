// Short-lived probe commands with a deadline: `<binary> --version`, the login shell's PATH, an
// adapter's auth check (`claude auth status`). They run through HarnessProcess like every other
// child, so a probe that hangs (or a login profile that starts something) is killed as a group.
import { HarnessProcess } from './child-process.js';

export interface ProbeCommand {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Deadline for the whole run (ms); the group is killed after it. */
  timeoutMs: number;
  /** For messages: 'claude --version'. */
  label?: string;
  harness?: string;
}

export interface ProbeOutput {
  /** False when the command could not be started at all (then `error` says why). */
  started: boolean;
  /** It did not exit on its own within the deadline and was killed. */
  timedOut: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  error?: string;
}

/** Runs a command to completion or its deadline; never throws. stdin is closed at once. */
export async function runProbe(probe: ProbeCommand): Promise<ProbeOutput> {
  const label = probe.label ?? [probe.command, ...probe.args].join(' ');
  let child: HarnessProcess;
  try {
    child = await HarnessProcess.start({
      command: probe.command,
      args: probe.args,
      cwd: probe.cwd ?? process.cwd(),
      env: probe.env,
      label,
      ...(probe.harness ? { harness: probe.harness } : {}),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { started: false, timedOut: false, code: null, signal: null, stdout: '', stderr: '', error: message };
  }
  const lines: string[] = [];
  child.onLine((line) => lines.push(line));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), probe.timeoutMs);
  });
  // close() ends stdin now (a probe must not wait for input), then SIGTERM/SIGKILL after the deadline.
  const closing = child.close({ stdinGraceMs: probe.timeoutMs, termGraceMs: 250 });
  const first = await Promise.race([child.exited, deadline]);
  clearTimeout(timer);
  const exit = await closing;
  // 'exit' can come before the last stdout bytes are read: wait for the pipe to close (the group is dead
  // by now, so nothing holds it open; the bound is for safety only).
  await Promise.race([child.outputEnded, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  const timedOut = first === 'timeout';
  return {
    started: true,
    timedOut,
    code: exit.code,
    signal: exit.signal,
    stdout: lines.join('\n'),
    stderr: child.stderr.text(),
    ...(timedOut ? { error: `\`${label}\` did not answer within ${probe.timeoutMs} ms` } : {}),
  };
}

/** A one-sentence account of a probe that did not succeed, with the stderr tail. */
export function describeProbeFailure(output: ProbeOutput, label: string): string {
  if (!output.started) return `\`${label}\` could not be started: ${output.error ?? 'unknown error'}`;
  if (output.timedOut) return output.error ?? `\`${label}\` did not answer in time`;
  const how = output.signal ? `was killed by ${output.signal}` : `exited with code ${output.code}`;
  const tail = (output.stderr.trim() || output.stdout.trim()).split('\n').slice(-3).join(' | ');
  return `\`${label}\` ${how}${tail ? `: ${tail}` : ''}`;
}
