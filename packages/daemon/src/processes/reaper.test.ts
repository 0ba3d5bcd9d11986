// The reaping decision on made-up process tables (who is killed after a crash, and above all who is
// not: a reused pid), and the /proc stat parser. reaper.process.test.ts does it with live processes.
import { describe, expect, it } from 'vitest';
import type { ProcessGroupRecord } from '../store/store.js';
import { canReadProcesses, type ProcessInfo, parseStat, readProcess } from './proc.js';
import { planReap } from './reaper.js';

const record = (pgid: number, startTicks: string, bootId = 'boot-1'): ProcessGroupRecord => ({
  id: `${bootId}:${pgid}:${startTicks}`,
  pgid,
  pid: pgid,
  startTicks,
  bootId,
  label: 'fake',
  startedAt: 1,
});
const proc = (pid: number, pgid: number, startTicks: string, extra: Partial<ProcessInfo> = {}): ProcessInfo => ({
  pid,
  ppid: 1,
  pgid,
  sid: pgid,
  state: 'S',
  startTicks,
  ...extra,
});

describe('planReap', () => {
  it('kills a group whose leader still has the recorded start time, with its members', () => {
    const [entry] = planReap([record(100, '5000')], [proc(100, 100, '5000'), proc(101, 100, '5010')], 'boot-1');
    expect(entry?.verdict).toEqual({ action: 'kill', pgid: 100, members: [100, 101] });
  });

  it('never kills a reused pid: same number, other start time', () => {
    const [entry] = planReap([record(100, '5000')], [proc(100, 100, '9000'), proc(101, 100, '9001')], 'boot-1');
    expect(entry?.verdict.action).toBe('spare');
  });

  it('kills members left behind by a leader that exited, when they are from our session and started after it', () => {
    const [entry] = planReap([record(100, '5000')], [proc(101, 100, '5020'), proc(102, 100, '6000')], 'boot-1');
    expect(entry?.verdict).toEqual({ action: 'kill', pgid: 100, members: [101, 102] });
  });

  it('spares a leaderless group with a member from another session or started before our leader', () => {
    expect(planReap([record(100, '5000')], [proc(101, 100, '5020', { sid: 7 })], 'boot-1')[0]?.verdict.action).toBe(
      'spare',
    );
    expect(planReap([record(100, '5000')], [proc(101, 100, '4000')], 'boot-1')[0]?.verdict.action).toBe('spare');
  });

  it('ignores zombies, and calls an empty group gone', () => {
    const [entry] = planReap([record(100, '5000')], [proc(100, 100, '5000', { state: 'Z' })], 'boot-1');
    expect(entry?.verdict).toEqual({ action: 'gone' });
  });

  it('touches nothing recorded in another boot, or without a start time', () => {
    expect(planReap([record(100, '5000', 'boot-0')], [proc(100, 100, '5000')], 'boot-1')[0]?.verdict).toEqual({
      action: 'gone',
    });
    const { startTicks: _, ...noStart } = record(100, '5000');
    expect(planReap([noStart], [proc(100, 100, '5000')], 'boot-1')[0]?.verdict.action).toBe('spare');
  });
});

describe('/proc', () => {
  it('parses a stat line whose command holds spaces and parentheses', () => {
    const fields = ['S', '1', '42', '42', ...Array.from({ length: 15 }, () => '0'), '123456', '0'];
    expect(parseStat(42, `42 (my (odd) cmd) ${fields.join(' ')}`)).toEqual({
      pid: 42,
      state: 'S',
      ppid: 1,
      pgid: 42,
      sid: 42,
      startTicks: '123456',
    });
    expect(parseStat(1, 'garbage')).toBeUndefined();
  });

  it.runIf(canReadProcesses)('reads this process', () => {
    const self = readProcess(process.pid);
    expect(self?.pid).toBe(process.pid);
    expect(Number(self?.startTicks)).toBeGreaterThan(0);
  });
});
