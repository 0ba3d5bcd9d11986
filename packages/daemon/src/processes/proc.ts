// What the daemon reads of other processes, from Linux's /proc: a process's group, session, state
// and start time (clock ticks since boot, which together with the boot id names a process uniquely,
// unlike its pid, which the kernel reuses), and the boot time to turn ticks into wall time.
// Off Linux every function answers "unknown" (undefined / empty), and callers then kill nothing.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** R, S, D, Z (zombie), T, ... */
  state: string;
  /** Field 22 of /proc/<pid>/stat: start time in clock ticks after boot (a decimal string). */
  startTicks: string;
}

export const canReadProcesses = process.platform === 'linux';

/** USER_HZ: the unit of /proc start times; 100 on every Linux ABI Node runs on. */
const TICKS_PER_SECOND = 100;

export function parseStat(pid: number, text: string): ProcessInfo | undefined {
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last ')'.
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state); field N is fields[N - 3].
  const startTicks = fields[19];
  if (fields.length < 20 || startTicks === undefined) return undefined;
  return {
    pid,
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    startTicks,
  };
}

export function readProcess(pid: number): ProcessInfo | undefined {
  if (!canReadProcesses) return undefined;
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export function listProcesses(): ProcessInfo[] {
  if (!canReadProcesses) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info) out.push(info);
  }
  return out;
}

let cachedBootId: string | undefined;
export function bootId(): string | undefined {
  if (!canReadProcesses) return undefined;
  if (cachedBootId !== undefined) return cachedBootId;
  try {
    cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
  return cachedBootId;
}

/** When the machine booted (ms since epoch; /proc/stat btime is whole seconds, rounded down). */
function bootTimeMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('btime '));
    return line ? Number(line.slice(6)) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started (ms since epoch), or undefined when unknown. Up to a second early
 * (btime is rounded down), never late.
 */
export function processStartMs(pid: number): number | undefined {
  const info = readProcess(pid);
  const boot = canReadProcesses ? bootTimeMs() : undefined;
  if (!info || boot === undefined) return undefined;
  return boot + (Number(info.startTicks) * 1000) / TICKS_PER_SECOND;
}
