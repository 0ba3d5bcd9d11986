// The canary's comparison: verdict changes and regressions, new and changed passthrough frame types, and
// the rendered table and Markdown.
import { describe, expect, it } from 'vitest';
import {
  type BehaviourRun,
  type CanaryReport,
  compareHarness,
  type HarnessRun,
  regressionsOf,
  renderMarkdown,
  renderText,
} from './report.js';

const run = (behaviour: string, status: BehaviourRun['status'], passthrough = {}, reason?: string): BehaviourRun => ({
  behaviour,
  status,
  passthrough,
  durationMs: 1,
  ...(reason ? { reason } : {}),
});
const harness = (version: string, behaviours: BehaviourRun[]): HarnessRun => ({
  id: 'claude-code',
  packageName: '@anthropic-ai/claude-code',
  version,
  behaviours,
});

describe('compareHarness', () => {
  it('finds a regressed verdict, a new frame type and a changed count', () => {
    const pinned = harness('2.1.197', [
      run('text turn', 'passed', { 'system/status': 1 }),
      run('interrupt', 'passed'),
      run('resume in a new process', 'limited'),
    ]);
    const newest = harness('2.1.332', [
      run('text turn', 'passed', { 'system/status': 2, 'system/background_tasks_changed': 1 }),
      run('interrupt', 'failed', {}, 'no turn.completed'),
      run('resume in a new process', 'passed'),
    ]);
    const comparison = compareHarness(pinned, newest, false);
    expect(comparison).toMatchObject({ pinned: '2.1.197', newest: '2.1.332', passedNewest: 2, behaviours: 3 });
    expect(comparison.newestRuns).toBe(newest.behaviours);
    expect(comparison.verdictChanges).toEqual([
      { behaviour: 'interrupt', pinned: 'passed', newest: 'failed', regressed: true, reason: 'no turn.completed' },
      { behaviour: 'resume in a new process', pinned: 'limited', newest: 'passed', regressed: false },
    ]);
    expect(comparison.newFrameTypes).toEqual([
      { behaviour: 'text turn', type: 'system/background_tasks_changed', pinned: 0, newest: 1 },
    ]);
    expect(comparison.changedFrameCounts).toEqual([
      { behaviour: 'text turn', type: 'system/status', pinned: 1, newest: 2 },
    ]);
    expect(regressionsOf([comparison])).toEqual([
      'claude-code 2.1.332 / interrupt: passed -> failed (no turn.completed)',
    ]);
  });

  it('a passed behaviour that becomes limited is a regression; skipped ones never are', () => {
    const comparison = compareHarness(
      harness('1', [run('a', 'passed'), run('b', 'skipped'), run('c', 'passed')]),
      harness('2', [run('a', 'limited'), run('b', 'failed'), run('c', 'skipped')]),
      false,
    );
    expect(comparison.verdictChanges.map((change) => [change.behaviour, change.regressed])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
    ]);
  });

  it('a harness the newest install cannot run is a regression', () => {
    const newest: HarnessRun = { id: 'amp', packageName: '@ampcode/cli', error: 'no platform binary', behaviours: [] };
    const comparison = compareHarness(harness('1', [run('a', 'passed')]), newest, false);
    expect(comparison.verdictChanges).toEqual([
      { behaviour: 'a', pinned: 'passed', newest: 'not run', regressed: true },
    ]);
    expect(regressionsOf([comparison])[0]).toContain('could not run: no platform binary');
  });

  it('the same run for pinned and newest shows no change', () => {
    const same = harness('2.1.332', [run('text turn', 'passed', { 'system/status': 1 })]);
    const comparison = compareHarness(same, same, true);
    expect(comparison).toMatchObject({
      sameAsPin: true,
      verdictChanges: [],
      newFrameTypes: [],
      changedFrameCounts: [],
    });
  });
});

describe('rendering', () => {
  const comparison = compareHarness(
    harness('2.1.197', [run('text turn', 'passed')]),
    harness('2.1.332', [run('text turn', 'failed', { 'system/x': 1 }, 'broke')]),
    false,
  );
  const report: CanaryReport = {
    date: '2026-12-01',
    cache: '/cache',
    packages: [{ name: '@anthropic-ai/claude-code', pinned: '2.1.197', newest: '2.1.332' }],
    harnesses: [comparison],
    protocol: { error: 'codex not installed' },
    build: {
      pinnedWire: { ok: true, errors: 0 },
      newestWire: { ok: false, errors: 1 },
      newErrors: ['a.ts(1,1): error TS1: x'],
    },
    regressions: regressionsOf([comparison]),
  };

  it('prints one table with the verdicts, the changes and the new frame types, then the regressions', () => {
    const text = renderText(report);
    const row = text.split('\n').find((line) => line.startsWith('claude-code'));
    expect(row).toMatch(
      /2\.1\.197\s+2\.1\.332\s+no\s+0\/1 passed, 1 failed\s+text turn: passed->failed \(!\)\s+system\/x/,
    );
    expect(text).toContain('Codex protocol: not compared (codex not installed)');
    expect(text).toContain('new errors with the newest: 1');
    expect(text).toContain('REGRESSIONS (1):');
  });

  it('writes the same as Markdown', () => {
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('| claude-code | 2.1.197 | 2.1.332 | no | 0/1 passed, 1 failed |');
    expect(markdown).toContain('- text turn: new passthrough `system/x` x1');
    expect(markdown).toContain('- REGRESSION: claude-code 2.1.332 / text turn: passed -> failed (broke)');
    expect(markdown).toContain('- claude-code 2.1.332 / text turn: `system/x` x1');
  });
});

describe('the verdict', () => {
  it('never says only "No behaviour regressed." while a behaviour fails on the pin and the newest', () => {
    // OpenClaw 2026.9.6's "no orphan process after close" failed on the pin and on the newest alike.
    const failing = run('no orphan process after close', 'failed', {}, 'a gateway process outlived close()');
    const comparison = compareHarness(
      harness('1', [run('text turn', 'passed'), failing]),
      harness('1', [run('text turn', 'passed'), failing]),
      true,
    );
    const report: CanaryReport = {
      date: '2026-12-01',
      cache: '~/c',
      packages: [],
      harnesses: [comparison],
      regressions: regressionsOf([comparison]),
    };
    expect(report.regressions).toEqual([]);
    const text = renderText(report);
    expect(text).not.toMatch(/No behaviour regressed\.$/);
    expect(text).toContain('No behaviour regressed, but behaviours fail.');
    expect(text).toContain('claude-code 1 / no orphan process after close: a gateway process outlived close()');
    expect(renderMarkdown(report)).toContain('- FAILING on the newest: claude-code 1 / no orphan process after close');
  });
});
