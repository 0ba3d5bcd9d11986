// reapProcessGroups on a live process group: a record whose start time is not the live leader's (a
// reused pid) leaves it alone, as does one without a boot id; the record with its real start time ends it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ProcessGroupRecord } from '../store/store.js';
import { canReadProcesses, readProcess } from './proc.js';
import { reapProcessGroups } from './reaper.js';

const record = (pgid: number, startTicks: string, bootId: string | undefined): ProcessGroupRecord => ({
  id: `${bootId}:${pgid}:${startTicks}`,
  pgid,
  pid: pgid,
  startTicks,
  ...(bootId !== undefined ? { bootId } : {}),
  label: 'sleep',
  startedAt: 1,
});

describe.runIf(canReadProcesses)('reapProcessGroups', () => {
  it('leaves a live group alone unless its leader has the recorded start time', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const pid = child.pid as number;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const live = readProcess(pid);
      expect(live?.pgid).toBe(pid);
      const earlier = String(Number(live?.startTicks) - 1);
      const unknownBoot = await reapProcessGroups([record(pid, earlier, undefined)], { bootId: () => 'boot-1' });
      expect(unknownBoot.killed).toEqual([]);
      const reused = await reapProcessGroups([record(pid, earlier, 'boot-1')], { bootId: () => 'boot-1' });
      expect(reused.killed).toEqual([]);
      expect(reused.spared[0]?.reason).toMatch(/another process/);
      expect(readProcess(pid)?.state).not.toBe('Z');
      const ours = await reapProcessGroups([record(pid, live?.startTicks as string, 'boot-1')], {
        bootId: () => 'boot-1',
      });
      expect(ours.killed).toEqual([{ pgid: pid, members: [pid] }]);
      await exited;
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
