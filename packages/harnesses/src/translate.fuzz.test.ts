// The translation fuzzer (docs/architecture/testing.md): every adapter's recorded fixtures, damaged by the
// testkit's seeded mutation engine, fed through the adapter's PURE translation and a checked core stream
// the way the adapter does it (each harness folder's testing/fuzz.ts, loaded through its manifest). For every case: no exception escapes the
// translation, every payload validates against ReinsEventSchema before the stream sees it, no item starts
// or completes twice, every emitted event validates and serialises, and the stream rules hold.
// 20,000 cases by default; `npm run fuzz -- --seed S --cases N` runs more, `--case I` one alone,
// `--adapters codex,pi` only those targets (REINS_FUZZ_ADAPTERS).
import type { FuzzFixture as Fixture, FuzzFrame as FixtureFrame, FuzzTarget } from '@reins/harnesses';
import {
  CheckedEventStream,
  describeMutation,
  formatFuzzReport,
  fuzzSelection,
  fuzzSettings,
  harnessFuzzTargets,
  mutateRecording,
  reproduceWith,
  runFuzz,
  selectByName,
} from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { fuzzAdapterNames } from '../../testkit/bin/fuzz-targets.mjs';

interface TranslationCase {
  label: string;
  mutations: string[];
  target: FuzzTarget;
  fixture: Fixture;
  frames: readonly FixtureFrame[];
}

function check(target: FuzzTarget, fixture: Fixture, frames: readonly FixtureFrame[]): string[] {
  const stream = new CheckedEventStream({ harness: target.name });
  target.replay(frames, stream, fixture);
  return stream.finish();
}

const nameOf = (fixture: Fixture) => `${fixture.header.harness}/${fixture.header.behaviour}.${fixture.header.version}`;

const FUZZ_TARGETS = await harnessFuzzTargets();
const selection = fuzzSelection();
const targets = selectByName(FUZZ_TARGETS, selection.adapters, 'REINS_FUZZ_ADAPTERS');

describe('translation fuzz targets', () => {
  it('are the ones `npm run fuzz -- --adapters` knows (the harness folders with a testing/fuzz.ts)', () => {
    expect(FUZZ_TARGETS.map((target) => target.name).sort()).toEqual(fuzzAdapterNames());
    expect(FUZZ_TARGETS.length).toBeGreaterThan(0);
  });

  it.each(targets.map((target) => [target.name, target] as const))(
    '%s: every recorded fixture replays as recorded with no problem, and the wire declares enum fields',
    (_name, target) => {
      expect(target.corpus.length).toBeGreaterThan(0);
      expect(target.mutation.enumFields?.length ?? 0).toBeGreaterThan(0);
      for (const fixture of target.corpus) {
        expect({ fixture: nameOf(fixture), problems: check(target, fixture, fixture.frames) }).toEqual({
          fixture: nameOf(fixture),
          problems: [],
        });
      }
    },
  );
});

const settings = fuzzSettings({ cases: 20_000 });

describe('translation fuzzer', () => {
  it(
    `survives ${settings.only !== undefined ? `case ${settings.only}` : `${settings.cases} cases`} (seed ${settings.seed})`,
    () => {
      const started = Date.now();
      const report = runFuzz<TranslationCase>({
        settings,
        build(random, index) {
          const target = targets[index % targets.length] as FuzzTarget;
          const fixture = random.pick(target.corpus);
          const { frames, mutations } = mutateRecording(fixture.frames, random, target.mutation);
          return {
            label: `${target.name} ${nameOf(fixture)}`,
            mutations: mutations.map(describeMutation),
            target,
            fixture,
            frames,
          };
        },
        check: (fuzzCase) => check(fuzzCase.target, fuzzCase.fixture, fuzzCase.frames),
      });
      const text = formatFuzzReport(report, reproduceWith(selection));
      console.log(`${text}\n  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      expect(report.cases).toBe(settings.only !== undefined ? 1 : settings.cases);
      expect(report.failedCases, text).toBe(0);
    },
    // A bound for a stuck run, not a speed assert (speed goes to npm run bench).
    Math.max(120_000, settings.cases * 20),
  );
});
