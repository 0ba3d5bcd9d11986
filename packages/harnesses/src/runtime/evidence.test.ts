// The evidence store and the capability matrix built from it.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capabilitiesFor, EvidenceStore, reinsHome, type StoredEvidence } from './evidence.js';

const OLD = { path: '/usr/bin/codex', version: '0.168.0', sha256: '1'.repeat(64) };
const NEW = { path: '/usr/bin/codex', version: '0.169.0', sha256: '2'.repeat(64) };

const record = (overrides: Partial<StoredEvidence> = {}): StoredEvidence => ({
  harness: 'codex',
  check: 'resume in a new process',
  capability: 'resume',
  passed: true,
  binary: NEW,
  harnessVersion: NEW.version,
  reinsVersion: '0.1.0',
  at: 1_000,
  ...overrides,
});

let dir: string;
let store: EvidenceStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-evidence-'));
  store = EvidenceStore.forEnv({ REINS_HOME: dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('EvidenceStore', () => {
  it('lives in $REINS_HOME/evidence.jsonl, else ~/.reins', () => {
    expect(store.path).toBe(join(dir, 'evidence.jsonl'));
    expect(reinsHome({ HOME: '/home/u' })).toBe('/home/u/.reins');
  });

  it('reads back what was appended; a missing file is an empty store', async () => {
    expect(await store.read()).toEqual({ path: store.path, records: [], skipped: [] });
    await store.append(record());
    await store.append([record({ capability: 'interrupt' }), record({ capability: 'steer', passed: false })]);
    const { records, skipped } = await store.read();
    expect(records.map((r) => [r.capability, r.passed])).toEqual([
      ['resume', true],
      ['interrupt', true],
      ['steer', false],
    ]);
    expect(skipped).toEqual([]);
  });

  it('refuses an invalid record and writes nothing', async () => {
    await expect(store.append([record(), record({ binary: { path: '/x', sha256: 'not-a-hash' } })])).rejects.toSatisfy(
      (error) => ReinsError.isInstance(error) && error.code === 'invalid_input' && /binary\.sha256/.test(error.message),
    );
    expect((await store.read()).records).toEqual([]);
  });

  it('skips and reports corrupt lines and a torn last line; the next append starts a fresh line', async () => {
    await store.append(record({ at: 1 }));
    await appendFile(store.path, 'this is not json\n{"check":"x"}\n');
    await appendFile(store.path, '{"harness":"codex","check":"torn');
    let read = await store.read();
    expect(read.records).toHaveLength(1);
    expect(read.skipped).toEqual([
      { line: 2, reason: 'not JSON' },
      { line: 3, reason: expect.stringContaining('not an evidence record') },
      { line: 4, reason: 'torn last line (no newline)' },
    ]);
    await store.append(record({ at: 2 }));
    read = await store.read();
    expect(read.records.map((r) => r.at)).toEqual([1, 2]);
    expect(read.skipped.map((s) => s.line)).toEqual([2, 3, 4]);
  });

  it('keeps every record of many concurrent appends', async () => {
    await Promise.all(Array.from({ length: 60 }, (_, i) => store.append(record({ at: i, detail: 'x'.repeat(200) }))));
    const { records, skipped } = await store.read();
    expect(skipped).toEqual([]);
    expect(records.map((r) => r.at).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect((await readFile(store.path, 'utf8')).endsWith('\n')).toBe(true);
  });
});

describe('capabilitiesFor', () => {
  it('observes only evidence for this fingerprint; a new binary has nothing observed', async () => {
    await store.append(record({ binary: OLD, harnessVersion: OLD.version }));
    const onNew = await capabilitiesFor({ harness: 'codex', implemented: { resume: true }, binary: NEW, store });
    expect(onNew.resume.implemented.state).toBe('yes');
    expect(onNew.resume.observed.state).toBe('unknown');
    expect(onNew.resume.testedVersions).toEqual(['0.168.0']);
    const onOld = await capabilitiesFor({ harness: 'codex', implemented: { resume: true }, binary: OLD, store });
    expect(onOld.resume.observed).toMatchObject({ state: 'yes', source: 'evidence' });
  });

  it('a later failure turns observed off again', async () => {
    await store.append(record({ at: 10, passed: true }));
    await store.append(record({ at: 20, passed: false, detail: 'no turn.completed after interrupt' }));
    const matrix = await capabilitiesFor({ harness: 'codex', implemented: { resume: true }, binary: NEW, store });
    expect(matrix.resume.observed.state).toBe('no');
    expect(matrix.resume.observed.evidence).toHaveLength(2);
  });

  it("another harness's evidence counts neither as observed nor as a tested version", async () => {
    await store.append(record({ harness: 'claude-code', harnessVersion: '2.1.197' }));
    const matrix = await capabilitiesFor({ harness: 'codex', implemented: {}, binary: NEW, store });
    expect(matrix.resume.observed.state).toBe('unknown');
    expect(matrix.resume.testedVersions).toEqual([]);
  });

  it('reports unreadable lines and still answers', async () => {
    await writeFile(store.path, `garbage\n${JSON.stringify(record())}\n`);
    const reported: number[] = [];
    const matrix = await capabilitiesFor({
      harness: 'codex',
      implemented: {},
      advertised: { resume: true },
      binary: NEW,
      store,
      onSkipped: (skipped) => reported.push(...skipped.map((s) => s.line)),
    });
    expect(reported).toEqual([1]);
    expect(matrix.resume.observed.state).toBe('yes');
    expect(matrix.resume.advertised).toEqual({ state: 'yes', source: 'harness' });
  });
});
