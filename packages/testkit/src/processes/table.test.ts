// The shared process table: this process in it, a child found as a descendant, alive until reaped.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { until } from '../polling/until.js';
import { aliveInGroups, descendantsOf, isDaemonWatcher, isProcessAlive, processTable } from './table.js';

describe.runIf(process.platform === 'linux')('process table', () => {
  it('lists this process with its parent and group', () => {
    const self = processTable().find((entry) => entry.pid === process.pid);
    expect(self).toMatchObject({ ppid: process.ppid });
    expect(self?.state).not.toBe('Z');
  });

  it('finds a detached child and its grandchild as descendants, in their own group, until they end', async () => {
    const child = spawn('/bin/sh', ['-c', 'sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    const pid = child.pid as number;
    try {
      const family = await until(() => {
        const found = descendantsOf(process.pid).filter((entry) => entry.pgid === pid);
        return found.length === 2 ? found : undefined;
      }, 'the shell and its sleep');
      expect(family.map((entry) => entry.pid)).toContain(pid);
      expect(aliveInGroups(new Set([pid]))).toHaveLength(2);
      expect(isProcessAlive(pid)).toBe(true);
      expect(isDaemonWatcher(pid)).toBe(false);
    } finally {
      process.kill(-pid, 'SIGKILL');
      await once(child, 'exit');
    }
    await until(() => aliveInGroups(new Set([pid])).length === 0, 'the group to be gone');
    expect(isProcessAlive(pid)).toBe(false);
  });
});
