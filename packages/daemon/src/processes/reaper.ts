// At start, the process groups a dead daemon recorded as alive are ended (its SIGKILL or OOM kill
// skipped their close). A pid can have been reused since, so a group is only touched when the
// evidence says it is still the one we started:
// - another boot id: the machine restarted, nothing of ours can be alive;
// - the leader (pid = pgid) is alive: it must have the recorded start time, else it is another
//   process that got the same pid, and nothing is killed;
// - the leader is gone but members remain: Linux does not hand out a number that still names a
//   live group, so the group is ours unless it ended and its number was reused by a new group whose
//   leader also exited. Its members are then killed only if each is in the session we created
//   (sid = pgid, the harness was started with setsid) and started no earlier than our leader.
// The decision (planReap) is pure; reapProcessGroups applies it with SIGTERM, then SIGKILL.

import type { ProcessGroupRecord } from '../store/store.js';
import { bootId as currentBootId, listProcesses, type ProcessInfo } from './proc.js';

export type ReapVerdict =
  | { action: 'kill'; pgid: number; members: number[] }
  | { action: 'spare'; reason: string }
  | { action: 'gone' };

export interface ReapPlanEntry {
  record: ProcessGroupRecord;
  verdict: ReapVerdict;
}

const alive = (info: ProcessInfo) => info.state !== 'Z' && info.state !== 'X';

export function planReap(
  records: readonly ProcessGroupRecord[],
  processes: readonly ProcessInfo[],
  bootId: string | undefined,
): ReapPlanEntry[] {
  return records.map((record) => ({ record, verdict: judge(record, processes, bootId) }));
}

function judge(record: ProcessGroupRecord, processes: readonly ProcessInfo[], bootId: string | undefined): ReapVerdict {
  if (record.startTicks === undefined || record.bootId === undefined || bootId === undefined) {
    return {
      action: 'spare',
      reason: 'its start time is unknown (not recorded on Linux), so it cannot be told from a reused pid',
    };
  }
  if (record.bootId !== bootId) return { action: 'gone' };
  const members = processes.filter((info) => info.pgid === record.pgid && alive(info));
  const leader = processes.find((info) => info.pid === record.pgid && alive(info));
  if (leader && leader.startTicks !== record.startTicks) {
    return { action: 'spare', reason: `pid ${record.pgid} now belongs to another process (started later)` };
  }
  if (members.length === 0) return { action: 'gone' };
  if (!leader) {
    const recordedStart = BigInt(record.startTicks);
    const foreign = members.find((info) => info.sid !== record.pgid || BigInt(info.startTicks) < recordedStart);
    if (foreign) {
      return { action: 'spare', reason: `process ${foreign.pid} in group ${record.pgid} is not from our session` };
    }
  }
  return { action: 'kill', pgid: record.pgid, members: members.map((info) => info.pid) };
}

export interface ReapReport {
  killed: Array<{ pgid: number; members: number[]; sessionId?: string }>;
  spared: Array<{ pgid: number; reason: string }>;
  /** Every record looked at: the caller marks them ended. */
  settled: ProcessGroupRecord[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** Applies planReap to `records` now: SIGTERM to each group to kill, then SIGKILL after `graceMs`. */
export async function reapProcessGroups(
  records: readonly ProcessGroupRecord[],
  options: { graceMs?: number; processes?: () => ProcessInfo[]; bootId?: () => string | undefined } = {},
): Promise<ReapReport> {
  const list = options.processes ?? listProcesses;
  const boot = (options.bootId ?? currentBootId)();
  const plan = planReap(records, list(), boot);
  const report: ReapReport = { killed: [], spared: [], settled: [...records] };
  const toKill = plan.flatMap((entry) =>
    entry.verdict.action === 'kill' ? [{ ...entry.verdict, record: entry.record }] : [],
  );
  for (const entry of plan) {
    if (entry.verdict.action === 'spare') report.spared.push({ pgid: entry.record.pgid, reason: entry.verdict.reason });
  }
  if (toKill.length === 0) return report;
  for (const entry of toKill) signalGroup(entry.pgid, 'SIGTERM');
  const graceMs = options.graceMs ?? 1_000;
  const deadline = Date.now() + graceMs;
  const stillThere = () => {
    const now = list();
    return toKill.filter((entry) => now.some((info) => info.pgid === entry.pgid && alive(info)));
  };
  while (stillThere().length > 0 && Date.now() < deadline) await sleep(25);
  for (const entry of stillThere()) signalGroup(entry.pgid, 'SIGKILL');
  for (const entry of toKill) {
    report.killed.push({
      pgid: entry.pgid,
      members: entry.members,
      ...(entry.record.sessionId !== undefined ? { sessionId: entry.record.sessionId } : {}),
    });
  }
  return report;
}
