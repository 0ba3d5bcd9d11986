// The suite's verdicts: a behaviour's honest harness limitation counts only where the target knows it.
import type { Harness } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { type Behaviour, HarnessLimitation } from './behaviours.js';
import { runConformance } from './suite.js';
import type { ConformanceTarget } from './target.js';

const harness = { capabilities: async () => ({}) } as unknown as Harness;

function target(knownLimitations?: Record<string, string>): ConformanceTarget {
  return {
    id: 'acp',
    ...(knownLimitations ? { knownLimitations } : {}),
    setup: async () => ({ harness, models: { primary: 'a', alternate: 'b' } }),
  };
}

const behaviours: Behaviour[] = [
  { name: 'shows resume', run: async () => ['resume'] },
  {
    name: 'cannot resume',
    evidences: 'resume',
    run: async () => {
      throw new HarnessLimitation('resume_failed: the agent lost the session');
    },
  },
  {
    name: 'breaks',
    run: async () => {
      throw new Error('turn never ended');
    },
  },
  { name: 'needs steer', requires: ['steer'], run: async () => ['steer'] },
];

describe('runConformance verdicts', () => {
  it('passes, fails and skips with the reason', async () => {
    const results = await runConformance(target(), { behaviours });
    expect(results.map((r) => [r.behaviour, r.status, r.demonstrated])).toEqual([
      ['shows resume', 'passed', ['resume']],
      ['cannot resume', 'failed', []],
      ['breaks', 'failed', []],
      ['needs steer', 'skipped', []],
    ]);
    expect(results[1]?.reason).toBe(
      'resume_failed: the agent lost the session: a harness limitation, but not a known one for acp',
    );
    expect(results[2]?.reason).toBe('turn never ended');
    expect(results[3]?.reason).toBe('the adapter does not implement steer');
  });

  it('reports a known harness limitation as limited, and only for that behaviour', async () => {
    const results = await runConformance(
      target({ 'cannot resume': 'Agent 1.0 cannot load its own sessions', breaks: 'known but irrelevant' }),
      { behaviours },
    );
    expect(results[1]).toMatchObject({
      status: 'limited',
      reason: 'Agent 1.0 cannot load its own sessions (resume_failed: the agent lost the session)',
      demonstrated: [],
    });
    // A plain failure stays a failure even when the behaviour is listed: only an honest limitation counts.
    expect(results[2]?.status).toBe('failed');
  });

  it("asks a target's capabilities once, and skips what it does not implement before any set-up", async () => {
    let asked = 0;
    let setUp = 0;
    const counting: ConformanceTarget = {
      id: 'acp',
      setup: async () => {
        setUp++;
        const capabilities = async () => {
          asked++;
          return { steer: { implemented: { state: 'no' } }, resume: { implemented: { state: 'yes' } } };
        };
        return { harness: { capabilities } as unknown as Harness, models: { primary: 'a', alternate: 'b' } };
      },
    };
    const results = await runConformance(counting, {
      behaviours: [behaviours[0], behaviours[3], behaviours[0]] as Behaviour[],
    });
    expect(results.map((r) => r.status)).toEqual(['passed', 'skipped', 'passed']);
    expect(results[1]?.reason).toBe('the adapter does not implement steer');
    expect(asked).toBe(1);
    // The skipped behaviour built no harness home: only the two that ran did.
    expect(setUp).toBe(2);
  });
});
