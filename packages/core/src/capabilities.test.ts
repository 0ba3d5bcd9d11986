import { describe, expect, it } from 'vitest';
import { CAPABILITY_KEYS, compareVersions, computeCapabilities, type Evidence } from './capabilities.js';

const binary = { path: '/usr/bin/codex', version: '0.169.0', sha256: 'a'.repeat(64) };
const otherBinary = { path: '/usr/bin/codex', version: '0.170.0', sha256: 'b'.repeat(64) };
const record = (over: Partial<Evidence>): Evidence => ({
  check: 'resume in a new process',
  capability: 'resume',
  passed: true,
  binary,
  harnessVersion: '0.169.0',
  reinsVersion: '0.1.0',
  at: 1,
  ...over,
});

describe('computeCapabilities', () => {
  it('reports all keys with the three layers', () => {
    const matrix = computeCapabilities({ implemented: { resume: true, structuredOutput: 'native' } });
    expect(Object.keys(matrix).sort()).toEqual([...CAPABILITY_KEYS].sort());
    expect(matrix.resume.implemented).toEqual({ state: 'yes', source: 'adapter' });
    expect(matrix.structuredOutput.implemented).toMatchObject({ state: 'yes', how: 'native' });
    expect(matrix.fork.implemented.state).toBe('no');
    expect(matrix.resume.advertised.state).toBe('unknown');
    expect(matrix.resume.observed.state).toBe('unknown');
  });

  it('observed counts only evidence for the same binary fingerprint', () => {
    const matrix = computeCapabilities({
      implemented: { resume: true },
      evidence: [record({ binary: otherBinary, harnessVersion: '0.170.0' })],
      binary,
    });
    expect(matrix.resume.observed.state).toBe('unknown');
    // ... but the tested version range still lists the version that was checked.
    expect(matrix.resume.testedVersions).toEqual(['0.170.0']);
  });

  it('observed is on with passing evidence for this binary, and the newest record wins', () => {
    const on = computeCapabilities({ implemented: { resume: true }, evidence: [record({ at: 1 })], binary });
    expect(on.resume.observed.state).toBe('yes');
    expect(on.resume.observed.evidence).toHaveLength(1);
    const off = computeCapabilities({
      implemented: { resume: true },
      evidence: [record({ at: 1 }), record({ at: 2, passed: false, detail: 'resume_failed' })],
      binary,
    });
    expect(off.resume.observed.state).toBe('no');
  });

  it('without a binary nothing is observed', () => {
    const matrix = computeCapabilities({ implemented: { resume: true }, evidence: [record({})] });
    expect(matrix.resume.observed.state).toBe('unknown');
  });

  it('advertised reflects what the harness says', () => {
    const matrix = computeCapabilities({ implemented: {}, advertised: { sessionList: true, fork: false } });
    expect(matrix.sessionList.advertised).toEqual({ state: 'yes', source: 'harness' });
    expect(matrix.fork.advertised.state).toBe('no');
  });

  it('orders versions numerically', () => {
    expect(['0.10.0', '0.9.1', '0.9.0'].sort(compareVersions)).toEqual(['0.9.0', '0.9.1', '0.10.0']);
  });
});
