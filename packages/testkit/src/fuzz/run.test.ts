import { describe, expect, it } from 'vitest';
import { CheckedEventStream, payloadProblem } from './check.js';
import { formatFuzzReport, fuzzSettings, runFuzz } from './run.js';

describe('runFuzz', () => {
  it('counts cases and problems, keeps the failures with what rebuilds them, and catches throws', () => {
    const report = runFuzz({
      settings: { seed: 5, cases: 30 },
      build: (random, index) => ({ label: `t${index % 2} case`, mutations: [`m${index}`], value: random.int(10) }),
      check: (fuzzCase) => {
        if (fuzzCase.value === 0) throw new TypeError('boom');
        return fuzzCase.value < 3 ? ['invalid payload item.delta: text: expected string'] : [];
      },
    });
    expect(report.cases).toBe(30);
    expect(report.casesByTarget).toEqual({ t0: 15, t1: 15 });
    expect(report.failedCases).toBe(report.failures.length);
    expect(report.failedCases).toBeGreaterThan(0);
    const text = formatFuzzReport(report);
    expect(text).toContain('30 cases with seed 5');
    const failure = report.failures[0] as (typeof report.failures)[number];
    expect(text).toContain(`--seed 5 --case ${failure.index}`);
    // One case alone gives the same verdict as inside the run.
    const alone = runFuzz({
      settings: { seed: 5, cases: 30, only: failure.index },
      build: (random, index) => ({ label: `t${index % 2} case`, mutations: [], value: random.int(10) }),
      check: (fuzzCase) => {
        if (fuzzCase.value === 0) throw new TypeError('boom');
        return fuzzCase.value < 3 ? ['invalid payload item.delta: text: expected string'] : [];
      },
    });
    expect(alone.cases).toBe(1);
    expect(alone.failures[0]?.problems).toEqual(failure.problems);
  });

  it('reads seed, cases and one case from the environment', () => {
    expect(fuzzSettings({ cases: 10 }, {})).toEqual({ seed: 1, cases: 10 });
    expect(fuzzSettings({ cases: 10 }, { REINS_FUZZ_SEED: '77', REINS_FUZZ_CASES: '5', REINS_FUZZ_CASE: '3' })).toEqual(
      { seed: 77, cases: 5, only: 3 },
    );
    expect(() => fuzzSettings({ cases: 1 }, { REINS_FUZZ_CASES: 'many' })).toThrow(/REINS_FUZZ_CASES/);
  });
});

describe('CheckedEventStream', () => {
  it('flags invalid payloads before the stream and items started or completed twice', () => {
    const checked = new CheckedEventStream();
    checked.startTurn({ text: 'hi' });
    checked.emit({ type: 'item.delta', itemId: 'm', kind: 'text', text: 5 as unknown as string });
    const item = { kind: 'agent_message', id: 'm', status: 'running', text: '' } as const;
    checked.emit({ type: 'item.started', item });
    checked.emit({ type: 'item.started', item });
    checked.emit({ type: 'item.completed', item: { ...item, status: 'completed' } });
    checked.emit({ type: 'item.completed', item: { ...item, status: 'completed' } });
    checked.completeTurn({ outcome: { status: 'completed' } });
    const problems = checked.finish();
    expect(problems).toEqual([
      expect.stringMatching(/^invalid payload item.delta: text/),
      'duplicate: item m started twice',
      'duplicate: item m completed twice',
    ]);
    expect(checked.events.at(-1)?.type).toBe('session.closed');
  });

  it('accepts a valid payload', () => {
    expect(payloadProblem({ type: 'notice', kind: 'info', message: 'ok' })).toBeUndefined();
    expect(payloadProblem({ type: 'usage.updated', turn: { input: -1 } })).toMatch(/turn.input/);
  });
});
